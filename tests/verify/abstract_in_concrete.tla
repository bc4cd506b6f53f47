// A concrete class inherits an abstract method without overriding it.
// expect-error: abstract_in_concrete: class Leaf: abstract method Base.area in the vtable of a non-abstract class
module "abstract_in_concrete"
main main
class Base abstract
  vtable Base.area
end
class Leaf extends Base
  vtable Base.area
end
method Base.area (Base) : float owner Base abstract
method main () : void static
  RETV
end
