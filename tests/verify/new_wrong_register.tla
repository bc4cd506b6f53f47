// The new object does not fit its destination register.
// expect-error: new_wrong_register: method main at offset 0: result: Sq is not assignable to string
module "new_wrong_register"
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
  regs string
  NEW r0, Sq
  RETV
end
