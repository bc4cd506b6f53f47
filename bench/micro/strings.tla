// strings: grow a string by concatenating short pieces, adding up the
// lengths; start again from "" every 100 pieces.
//   fn main() {
//       let rounds = 120000; let pieces = 100;
//       var total = 0; var s = "";
//       for r in 0..rounds {
//           s = "";
//           for j in 0..pieces { s = s + "ab"; total += s.length; }
//       }
//       println(total); println(s);
//   }
module "strings"
source "strings.tl"
main main

native println_int (int) : void = builtin "println_int"
native println_string (string) : void = builtin "println_string"

// r0 rounds, r1 pieces, r2 total, r3 s, r4 r, r5 j, r6 t, r7 piece
method main () : void static
  regs int, int, int, string, int, int, int, string
  line 2
  LDI r0, 120000
  LDI r1, 100
  line 3
  LDI r2, 0
  LDK r3, ""
  line 4
  LDI r4, 0
  JLE r0, r4, rounds_done
round:
  line 5
  LDK r3, ""
  line 6
  LDI r5, 0
  JLE r1, r5, pieces_done
piece:
  LDK r7, "ab"
  SCAT r3, r3, r7
  SLEN r6, r3
  ADD r2, r2, r6
  LOOP r5, r1, piece
pieces_done:
  line 4
  LOOP r4, r0, round
rounds_done:
  line 9
  CALLN _, r2, println_int
  CALLN _, r3, println_string
  RETV
end
