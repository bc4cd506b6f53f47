// Two interfaces extending each other.
// expect-error: cyclic_interfaces: class I: cyclic interface hierarchy
module "cyclic_interfaces"
main main
interface I extends J
end
interface J extends I
end
method main () : void static
  RETV
end
