// A non-static method of an interface must be abstract.
// expect-error: iface_method_with_code: method Shape.area: an interface method must be abstract
module "iface_method_with_code"
main main
interface Shape
  methods Shape.area
end
method Shape.area (Shape) : float owner Shape
  regs float
  RET r1
end
method main () : void static
  RETV
end
