// The implementing method returns int where the interface says float.
// expect-error: iface_signature: class Circle: Circle.area does not match the signature of Shape.area
module "iface_signature"
main main
interface Shape
  methods Shape.area
end
class Circle implements Shape
  vtable Circle.area
end
method Shape.area (Shape) : float owner Shape abstract
method Circle.area (Circle) : int owner Circle
  regs int
  RET r1
end
method main () : void static
  RETV
end
