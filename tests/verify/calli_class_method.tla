// CALLI needs an interface method.
// expect-error: calli_class_method: method main at offset 1: CALLI of Sq.area, which is not an interface method
module "calli_class_method"
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
  CALLI r1, r0, Sq.area
  RETV
end
