// Dumps Rust's view of Unicode for smista's tokenizer tables.
// Output lines:
//   A <start> <end>            alphanumeric range (inclusive), hex
//   L <cp> <hex cps...>        char::to_lowercase when it differs from the char
//   S <cp> <class>             sigma-context class: 1 = case-ignorable (skipped), 2 = cased, non-ignorable
fn main() {
    let mut out = String::new();
    let mut start: Option<u32> = None;
    let mut prev = 0u32;
    for cp in 0u32..=0x10FFFF {
        let Some(c) = char::from_u32(cp) else { continue };
        let a = c.is_alphanumeric();
        if a {
            if start.is_none() { start = Some(cp); }
            prev = cp;
        } else if let Some(s) = start.take() {
            out.push_str(&format!("A {:x} {:x}\n", s, prev));
        }
        // a surrogate gap breaks nothing: surrogates are not alphanumeric anyway
    }
    if let Some(s) = start { out.push_str(&format!("A {:x} {:x}\n", s, prev)); }
    for cp in 0u32..=0x10FFFF {
        let Some(c) = char::from_u32(cp) else { continue };
        let low: Vec<char> = c.to_lowercase().collect();
        if low.len() != 1 || low[0] != c {
            out.push_str(&format!("L {:x}", cp));
            for l in low { out.push_str(&format!(" {:x}", l as u32)); }
            out.push('\n');
        }
        if c == '\u{03A3}' { continue; }
        let t1: String = format!("{}\u{03A3}", c).to_lowercase();
        let t3: String = format!("A{}\u{03A3}", c).to_lowercase();
        let fin1 = t1.ends_with('\u{03C2}');
        let fin3 = t3.ends_with('\u{03C2}');
        let class = if fin1 { 2 } else if fin3 { 1 } else { 0 };
        if class != 0 { out.push_str(&format!("S {:x} {}\n", cp, class)); }
    }
    print!("{}", out);
}
