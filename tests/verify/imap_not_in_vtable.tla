// An imap entry binds a method that is not in the class's vtable.
// expect-error: imap_not_in_vtable: class C: imap entry 0: D.name is not in the vtable of C
module "imap_not_in_vtable"
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
  imap Named.get = D.name
end
class D extends Box
  vtable Box.get, D.name
end
method D.name (D) : string owner D
  regs string
  RET r1
end
method C.get$Named (C) : string owner C
  regs string
  RET r1
end
method main () : void static
  RETV
end
