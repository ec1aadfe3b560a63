use std::io::{self, BufRead, Write};
fn main() {
    let stdin = io::stdin();
    let mut out = io::BufWriter::new(io::stdout());
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        // input: hex code points separated by spaces
        let s: String = line.split_whitespace().map(|h| char::from_u32(u32::from_str_radix(h,16).unwrap()).unwrap()).collect();
        let toks: Vec<String> = s.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase).collect();
        let enc: Vec<String> = toks.iter().map(|t| t.chars().map(|c| format!("{:x}", c as u32)).collect::<Vec<_>>().join(",")).collect();
        writeln!(out, "{}", enc.join(" ")).unwrap();
    }
}
