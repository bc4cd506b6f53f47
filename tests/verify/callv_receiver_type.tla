// CALLV of Sq.area on a receiver statically typed Base.
// expect-error: callv_receiver_type: method main at offset 1: argument 0: Base is not assignable to Sq
module "callv_receiver_type"
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
  regs Base, float, Sq
  LDNULL r0
  CALLV r1, r0, Sq.area
  RETV
end
