use std::fmt;

// ANCHOR: mdquince
pub fn mdquince() -> u32 {
    42
}
// ANCHOR_END: mdquince

pub fn other() {}
