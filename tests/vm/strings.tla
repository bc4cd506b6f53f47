// String basics: LDK with escapes, SLEN, SEQ (by content; null equals only
// null), print_string/println_string of null, str_int,
// str_bool, chr (value & 255), index_of.
// expect: hello
// expect: 5
// expect: 0
// expect: true
// expect: false
// expect: true
// expect: false
// expect: false
// expect: null
// expect: say "hi"\ok
// expect: A|B|C
// expect: 5
// expect: -42 true false
// expect: A A
// expect: 4
// expect: -1
// expect: 0
// expect: 6
// expect: 3
module "strings"
source "strings.tl"
main main
native println_int (int) : void = builtin "println_int"
native println_bool (bool) : void = builtin "println_bool"
native print_string (string) : void = builtin "print_string"
native println_string (string) : void = builtin "println_string"
native str_int (int) : string = builtin "str_int"
native str_bool (bool) : string = builtin "str_bool"
native chr (int) : string = builtin "chr"
native index_of (string, string) : int = builtin "index_of"

method main () : void static
  regs string, string, string, int, bool, string
  LDK r0, "hello"
  CALLN _, r0, println_string
  SLEN r3, r0
  CALLN _, r3, println_int
  LDK r1, ""
  SLEN r3, r1
  CALLN _, r3, println_int
  // "hel" + "lo" is a different object with the same bytes
  LDK r1, "hel"
  LDK r2, "lo"
  SCAT r1, r1, r2
  SEQ r4, r0, r1
  CALLN _, r4, println_bool         // true
  LDK r2, "hellO"
  SEQ r4, r0, r2
  CALLN _, r4, println_bool         // false
  LDNULL r1
  LDNULL r2
  SEQ r4, r1, r2
  CALLN _, r4, println_bool         // null == null: true
  SEQ r4, r1, r0
  CALLN _, r4, println_bool         // null vs "hello": false
  SEQ r4, r0, r1
  CALLN _, r4, println_bool         // "hello" vs null: false
  CALLN _, r1, println_string       // null
  LDK r0, "say \"hi\"\\ok"
  CALLN _, r0, println_string
  LDK r0, "\x41|\x42|C"
  CALLN _, r0, println_string
  LDK r0, "\x41\t\n\r\'"
  SLEN r3, r0
  CALLN _, r3, println_int          // 5
  LDI r3, -42
  CALLN r0, r3, str_int
  LDK r1, " "
  SCAT r0, r0, r1
  LDTRUE r4
  CALLN r2, r4, str_bool
  SCAT r0, r0, r2
  SCAT r0, r0, r1
  LDFALSE r4
  CALLN r2, r4, str_bool
  SCAT r0, r0, r2
  CALLN _, r0, println_string
  LDI r3, 65
  CALLN r0, r3, chr
  LDI r3, 321                       // 321 & 255 = 65
  CALLN r2, r3, chr
  LDK r1, " "
  SCAT r0, r0, r1
  SCAT r0, r0, r2
  CALLN _, r0, println_string
  LDK r0, "hello world"
  LDK r1, "o"
  CALLN r3, r0, index_of
  CALLN _, r3, println_int          // 4
  LDK r1, "z"
  CALLN r3, r0, index_of
  CALLN _, r3, println_int          // -1
  LDK r1, ""
  CALLN r3, r0, index_of
  CALLN _, r3, println_int          // 0
  LDK r1, "world"
  CALLN r3, r0, index_of
  CALLN _, r3, println_int          // 6
  // a NUL byte inside a constant counts as a byte
  LDK r0, "a\0b"
  SLEN r3, r0
  CALLN _, r3, println_int          // 3
  RETV
end
