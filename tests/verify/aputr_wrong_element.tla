// Storing a string into an array of Shape.
// expect-error: aputr_wrong_element: method main at offset 3: element: string is not assignable to Shape
module "aputr_wrong_element"
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
  regs Shape[], int, string
  LDI r1, 1
  NEWA r0, r1, Shape[]
  LDK r2, "no"
  APUTR r0, r1, r2
  RETV
end
