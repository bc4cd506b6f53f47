// Two classes extending each other.
// expect-error: cyclic_classes: class A: cyclic class hierarchy
module "cyclic_classes"
main main
class A extends B
end
class B extends A
end
method main () : void static
  RETV
end
