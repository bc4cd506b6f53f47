// A concrete class lacks a method of its interface.
// expect-error: missing_iface_method: class Circle: does not implement Shape.area
module "missing_iface_method"
main main
interface Shape
  methods Shape.area
end
class Circle implements Shape
end
method Shape.area (Shape) : float owner Shape abstract
method main () : void static
  RETV
end
