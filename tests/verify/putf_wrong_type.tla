// PUTF of an int into a float field.
// expect-error: putf_wrong_type: method main at offset 2: field side: int is not assignable to float
module "putf_wrong_type"
main main

interface Shape
  methods Shape.area
end
class Base abstract implements Shape
  vtable Base.area
end
class Sq extends Base
  field side float
  vtable Sq.area
end
method Shape.area (Shape) : float owner Shape abstract
method Base.area (Base) : float owner Base abstract
method Sq.area (Sq) : float owner Sq
  regs float
  GETF r1, r0, Sq.side
  RET r1
end
method helper (int) : int static
  RET r0
end

method main () : void static
  regs Sq, int
  NEW r0, Sq
  LDI r1, 2
  PUTF r0, Sq.side, r1
  RETV
end
