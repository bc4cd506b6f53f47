// CALL (no dispatch) of an abstract method.
// expect-error: call_abstract: method main at offset 1: CALL of abstract method Base.area
module "call_abstract"
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
  regs Sq, float
  NEW r0, Sq
  CALL r1, r0, Base.area
  RETV
end
