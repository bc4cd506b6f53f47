// A null string passed to an extern native stops with "null dereference"
// before C sees it (strlen(NULL) would crash the process).
// expect: 5
// expect-runtime-error: null dereference
// expect-stderr: error: null dereference
// expect-stderr:   at main (err_extern_null.tl:9)
module "err_extern_null"
source "err_extern_null.tl"
main main
native strlen (string) : int = "libc.so.6" "strlen"
native println_int (int) : void = builtin "println_int"

method main () : void static
  regs string, int
  LDK r0, "hello"
  CALLN r1, r0, strlen
  CALLN _, r1, println_int
  LDNULL r0
  line 9
  CALLN r1, r0, strlen
  CALLN _, r1, println_int
  RETV
end
