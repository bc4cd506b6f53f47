// NEW of an abstract class.
// expect-error: new_abstract: method main at offset 0: cannot instantiate abstract class Base
module "new_abstract"
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
  regs Base
  NEW r0, Base
  RETV
end
