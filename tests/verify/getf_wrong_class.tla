// GETF of a field of Sq on an unrelated class.
// expect-error: getf_wrong_class: method main at offset 1: register r0 has type Other, which has no field side
module "getf_wrong_class"
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

class Other
end
method main () : void static
  regs Other, float
  NEW r0, Other
  GETF r1, r0, Sq.side
  RETV
end
