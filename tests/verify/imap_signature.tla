// An imap entry binds a method whose signature differs from the interface method'\''s (here the erased Object result).
// expect-error: imap_signature: class C: imap entry 0: Box.get does not match the signature of Named.get
module "imap_signature"
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
  imap Named.get = Box.get
end
method C.get$Named (C) : string owner C
  regs string
  RET r1
end
method main () : void static
  RETV
end
