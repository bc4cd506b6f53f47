// An imap entry names a method index out of range.
// expect-error: imap_range: class C: imap entry 0: method index 99 out of range
module "imap_range"
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
  imap Named.get = #99
end
method C.get$Named (C) : string owner C
  regs string
  RET r1
end
method main () : void static
  RETV
end
