// CALLV needs a virtual method, not a static function.
// expect-error: callv_static: method main at offset 1: CALLV of helper, which is not a virtual method
module "callv_static"
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
  regs int
  LDI r0, 1
  CALLV r0, r0, helper
  RETV
end
