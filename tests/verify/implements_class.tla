// A class implementing a class.
// expect-error: implements_class: class A: B is not an interface
module "implements_class"
main main
class B
end
class A implements B
end
method main () : void static
  RETV
end
