//! The brain executable. Placeholder until the protocol layer lands.
fn main() {}
