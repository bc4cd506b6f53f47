// A class whose superclass is an interface.
// expect-error: class_extends_interface: class A: superclass Shape is an interface
module "class_extends_interface"
main main
interface Shape
end
class A extends Shape
end
method main () : void static
  RETV
end
