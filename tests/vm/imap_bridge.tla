// Explicit interface-method maps (imap): a generic base's erased method
// Box.get returns Object, the interface wants string, so NamedBox adds a
// bridge NamedBox.get$Named (a new vtable slot) that calls Box.get
// virtually and casts, and binds Named.get to it with an imap entry (the
// short-name rule would find Box.get with the wrong signature).
// Over inherits the imap entry and overrides Box.get: the bridge's CALLV
// reaches the override.  Own gives its own entry for Named.get, which wins
// over the inherited one.  Deep overrides the bridge slot itself: the
// inherited entry binds through the slot, so Deep's method is called.
// Plain implements Named by short name next to the imap classes.
// expect: box
// expect: over
// expect: own
// expect: deep
// expect: plain
// expect: box
module "imap_bridge"
source "imap_bridge.tl"
main main
native println_string (string) : void = builtin "println_string"

interface Named
  methods Named.get
end
method Named.get (Named) : string owner Named abstract

class Box
  field item Object
  vtable Box.get
end
method Box.get (Box) : Object owner Box
  regs Object
  GETF r1, r0, Box.item
  RET r1
end

class NamedBox extends Box implements Named
  vtable Box.get, NamedBox.get$Named
  imap Named.get = NamedBox.get$Named
end
method NamedBox.get$Named (NamedBox) : string owner NamedBox
  regs Object, string
  CALLV r1, r0, Box.get
  CAST r2, r1, string
  RET r2
end

class Over extends NamedBox
  vtable Over.get, NamedBox.get$Named
end
method Over.get (Over) : Object owner Over
  regs string
  LDK r1, "over"
  RET r1
end

class Own extends NamedBox
  vtable Box.get, NamedBox.get$Named, Own.get$Named
  imap Named.get = Own.get$Named
end
method Own.get$Named (Own) : string owner Own
  regs string
  LDK r1, "own"
  RET r1
end

class Deep extends NamedBox
  vtable Box.get, Deep.get$Named
end
method Deep.get$Named (Deep) : string owner Deep
  regs string
  LDK r1, "deep"
  RET r1
end

class Plain implements Named
  vtable Plain.get
end
method Plain.get (Plain) : string owner Plain
  regs string
  LDK r1, "plain"
  RET r1
end

method show (Named) : void static
  regs string
  line 1
  CALLI r1, r0, Named.get
  CALLN _, r1, println_string
  RETV
end

method main () : void static
  regs Named, string, NamedBox
  NEW r2, NamedBox
  LDK r1, "box"
  PUTF r2, Box.item, r1
  MOV r0, r2
  CALL _, r0, show
  NEW r0, Over
  CALL _, r0, show
  NEW r0, Own
  CALL _, r0, show
  NEW r0, Deep
  CALL _, r0, show
  NEW r0, Plain
  CALL _, r0, show
  MOV r0, r2
  CALL _, r0, show
  RETV
end
