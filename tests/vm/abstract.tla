// Abstract classes: an abstract method in the vtable (no code) filled by
// subclasses; a concrete method of the abstract class calling it (template
// method); CALLV through the abstract type; a subclass of a subclass.
// expect: sq 4.0
// expect: circ 12.0
// expect: big 16.0
// expect: 32.0
module "abstract"
source "abstract.tl"
main main
native println_string (string) : void = builtin "println_string"
native println_float (float) : void = builtin "println_float"
native str_float (float) : string = builtin "str_float"

class Shape abstract
  field name string
  vtable Shape.area, Shape.describe
end

class Sq extends Shape
  field side float
  vtable Sq.area, Shape.describe
end

class Circ extends Shape
  field r float
  vtable Circ.area, Shape.describe
end

// A square that reports four times its area.
class BigSq extends Sq
  vtable BigSq.area, Shape.describe
end

method Shape.area (Shape) : float owner Shape abstract

method Shape.describe (Shape) : string owner Shape
  regs string, string, float
  GETF r1, r0, Shape.name
  LDK r2, " "
  SCAT r1, r1, r2
  CALLV r3, r0, Shape.area
  CALLN r2, r3, str_float
  SCAT r1, r1, r2
  RET r1
end

method Sq.area (Sq) : float owner Sq
  regs float
  GETF r1, r0, Sq.side
  FMUL r1, r1, r1
  RET r1
end

method Circ.area (Circ) : float owner Circ
  regs float, float
  GETF r1, r0, Circ.r
  FMUL r1, r1, r1
  LDF r2, 3.0
  FMUL r1, r1, r2
  RET r1
end

method BigSq.area (BigSq) : float owner BigSq
  regs float, float
  CALL r1, r0, Sq.area
  LDF r2, 4.0
  FMUL r1, r1, r2
  RET r1
end

method main () : void static
  regs Shape[], int, Sq, Circ, BigSq, string, float, Shape, float, int
  LDI r1, 3
  NEWA r0, r1, Shape[]
  NEW r2, Sq
  LDK r5, "sq"
  PUTF r2, Shape.name, r5
  LDF r6, 2.0
  PUTF r2, Sq.side, r6
  LDI r1, 0
  APUTR r0, r1, r2
  NEW r3, Circ
  LDK r5, "circ"
  PUTF r3, Shape.name, r5
  PUTF r3, Circ.r, r6
  LDI r1, 1
  APUTR r0, r1, r3
  NEW r4, BigSq
  LDK r5, "big"
  PUTF r4, Shape.name, r5
  PUTF r4, Sq.side, r6
  LDI r1, 2
  APUTR r0, r1, r4
  LDI r1, 0
  LDI r9, 3
  LDF r8, 0.0
each:
  AGETR r7, r0, r1
  CALLV r5, r7, Shape.describe
  CALLN _, r5, println_string
  CALLV r6, r7, Shape.area
  FADD r8, r8, r6
  LOOP r1, r9, each
  CALLN _, r8, println_float        // 4 + 12 + 16
  RETV
end
