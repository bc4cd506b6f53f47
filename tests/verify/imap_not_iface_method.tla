// An imap entry whose first method is not an interface method.
// expect-error: imap_not_iface_method: class C: imap entry 0: Box.get is not an interface method
module "imap_not_iface_method"
main main
interface Named
  methods Named.get
end
interface Other
  methods Other.get
end
method Named.get (Named) : string owner Named abstract
method Other.get (Other) : string owner Other abstract
class Box
  vtable Box.get
end
method Box.get (Box) : Object owner Box
  regs Object
  RET r1
end
class C extends Box implements Named
  vtable Box.get, C.get$Named
  imap Box.get = C.get$Named
end
method C.get$Named (C) : string owner C
  regs string
  RET r1
end
method main () : void static
  RETV
end
