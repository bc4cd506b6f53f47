// A subclass vtable must start with its superclass's.
// expect-error: vtable_too_short: class Leaf: vtable has 0 slots, fewer than the 1 of superclass Base
module "vtable_too_short"
main main
class Base
  vtable Base.get
end
class Leaf extends Base
end
method Base.get (Base) : int owner Base
  regs int
  RET r1
end
method main () : void static
  RETV
end
