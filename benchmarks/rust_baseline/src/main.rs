//! A compiled (Rust) build of the original classifier, for benchmarks and differential runs.
//!
//! This is the original algorithm as written upstream: tokenize once, sort the rule
//! indices by (priority, index), then for each rule in order evaluate
//! `match_keyword` (pass 1: first keyword matching a token exactly; pass 2: first
//! keyword matching a token by typo: no containment either way and OSA distance
//! 1..=cap) and the context condition; first match wins.
//!
//! Input files use hex-encoded UTF-8 fields so any string survives:
//!   rules:   `default <hex>` then `rule <hex label> <priority> <hex kw,...|-> <hex ctx,...|->`
//!   prompts: one per line, `<hex text> <hex ctx,...|->`
//! Modes:
//!   classify RULES PROMPTS      one result line per prompt: `<rule|-> <hex kw|-> <0|1> <hex ctx|->`
//!   tokenize PROMPTS            one line per prompt: tokens hex-encoded, comma-separated
//!   bench RULES PROMPTS REPS    prints `total_ns`, `median_ns` (per prompt) and a checksum
use std::collections::HashSet;
use std::env;
use std::fs;
use std::time::Instant;

const MAX_FUZZY_DISTANCE: usize = 2;

fn fuzzy_cap(length: usize) -> usize {
    if length < 5 {
        0
    } else if length < 9 {
        1
    } else {
        MAX_FUZZY_DISTANCE
    }
}

fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

// ---------------------------------------------------------------------------
// OSA distance over chars: common affix removal, then Hyyrö's bit-parallel
// algorithm (2003) when the shorter string fits in 64 chars, else a plain DP.

fn osa_distance(a: &[char], b: &[char]) -> usize {
    let mut a = a;
    let mut b = b;
    while let (Some(x), Some(y)) = (a.first(), b.first()) {
        if x != y {
            break;
        }
        a = &a[1..];
        b = &b[1..];
    }
    while let (Some(x), Some(y)) = (a.last(), b.last()) {
        if x != y {
            break;
        }
        a = &a[..a.len() - 1];
        b = &b[..b.len() - 1];
    }
    if a.len() > b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    if a.is_empty() {
        return b.len();
    }
    if a.len() <= 64 {
        osa_hyyro(a, b)
    } else {
        osa_dp(a, b)
    }
}

struct PatternMatch {
    ascii: [u64; 256],
    other: Vec<(char, u64)>,
}

impl PatternMatch {
    fn new(s: &[char]) -> Self {
        let mut pm = PatternMatch { ascii: [0; 256], other: Vec::new() };
        let mut bit = 1u64;
        for &c in s {
            let cp = c as u32;
            if cp < 256 {
                pm.ascii[cp as usize] |= bit;
            } else if let Some(e) = pm.other.iter_mut().find(|e| e.0 == c) {
                e.1 |= bit;
            } else {
                pm.other.push((c, bit));
            }
            bit <<= 1;
        }
        pm
    }

    fn get(&self, c: char) -> u64 {
        let cp = c as u32;
        if cp < 256 {
            self.ascii[cp as usize]
        } else {
            self.other.iter().find(|e| e.0 == c).map_or(0, |e| e.1)
        }
    }
}

fn osa_hyyro(a: &[char], b: &[char]) -> usize {
    let pm = PatternMatch::new(a);
    let mut vp: u64 = !0;
    let mut vn: u64 = 0;
    let mut d0: u64 = 0;
    let mut pm_j_old: u64 = 0;
    let mut dist = a.len();
    let mask: u64 = 1u64 << (a.len() - 1);
    for &c in b {
        let pm_j = pm.get(c);
        let tr = (((!d0) & pm_j) << 1) & pm_j_old;
        d0 = (((pm_j & vp).wrapping_add(vp)) ^ vp) | pm_j | vn;
        d0 |= tr;
        let hp = vn | !(d0 | vp);
        let hn = d0 & vp;
        if hp & mask != 0 {
            dist += 1;
        }
        if hn & mask != 0 {
            dist -= 1;
        }
        let hp = (hp << 1) | 1;
        let hn = hn << 1;
        vp = hn | !(d0 | hp);
        vn = hp & d0;
        pm_j_old = pm_j;
    }
    dist
}

fn osa_dp(a: &[char], b: &[char]) -> usize {
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for j in 0..=m {
        d[0][j] = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

// ---------------------------------------------------------------------------
// The original's fuzzy.rs and classify

#[derive(PartialEq, Clone, Copy)]
enum Kind {
    Exact,
    Fuzzy,
}

/// A prompt token with its chars decoded once (the OSA works on chars; the
/// original hands `token.chars()` iterators to rapidfuzz, which allocates nothing).
struct Token {
    text: String,
    chars: Vec<char>,
}

fn is_typo(needle: &str, needle_chars: &[char], token: &Token, cap: usize) -> bool {
    if token.text.contains(needle) || needle.contains(token.text.as_str()) {
        return false;
    }
    let d = osa_distance(needle_chars, &token.chars);
    d != 0 && d <= cap
}

fn token_match(needle: &str, tokens: &[Token]) -> Option<Kind> {
    let needle = needle.to_lowercase();
    if tokens.iter().any(|t| t.text == needle) {
        return Some(Kind::Exact);
    }
    let needle_chars: Vec<char> = needle.chars().collect();
    let cap = fuzzy_cap(needle_chars.len());
    if cap == 0 {
        return None;
    }
    if tokens.iter().any(|t| is_typo(&needle, &needle_chars, t, cap)) {
        Some(Kind::Fuzzy)
    } else {
        None
    }
}

fn match_keyword<'a>(keywords: &'a [String], tokens: &[Token]) -> Option<(&'a str, bool)> {
    if let Some(k) = keywords.iter().find(|k| token_match(k, tokens) == Some(Kind::Exact)) {
        return Some((k, false));
    }
    keywords
        .iter()
        .find(|k| token_match(k, tokens) == Some(Kind::Fuzzy))
        .map(|k| (k.as_str(), true))
}

struct Rule {
    label: String,
    priority: u64,
    keywords: Vec<String>,
    contexts: Vec<String>,
}

struct Outcome<'a> {
    rule: Option<usize>,
    keyword: Option<&'a str>,
    fuzzy: bool,
    context: Option<&'a str>,
}

fn classify<'a>(rules: &'a [Rule], text: &str, contexts: &HashSet<String>) -> Outcome<'a> {
    let tokens: Vec<Token> = tokenize(text)
        .into_iter()
        .map(|text| {
            let chars = text.chars().collect();
            Token { text, chars }
        })
        .collect();
    let mut order: Vec<usize> = (0..rules.len()).collect();
    order.sort_by(|&a, &b| rules[a].priority.cmp(&rules[b].priority).then(a.cmp(&b)));
    for i in order {
        let rule = &rules[i];
        let mut keyword = None;
        let mut fuzzy = false;
        if !rule.keywords.is_empty() {
            match match_keyword(&rule.keywords, &tokens) {
                Some((k, f)) => {
                    keyword = Some(k);
                    fuzzy = f;
                }
                None => continue,
            }
        }
        let mut context = None;
        if !rule.contexts.is_empty() {
            match rule.contexts.iter().find(|c| contexts.contains(*c)) {
                Some(c) => context = Some(c.as_str()),
                None => continue,
            }
        }
        return Outcome { rule: Some(i), keyword, fuzzy, context };
    }
    Outcome { rule: None, keyword: None, fuzzy: false, context: None }
}

// ---------------------------------------------------------------------------
// I/O

fn unhex(s: &str) -> String {
    let bytes: Vec<u8> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect();
    String::from_utf8(bytes).expect("utf-8")
}

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn list(field: &str) -> Vec<String> {
    if field == "-" {
        Vec::new()
    } else {
        field.split(',').map(unhex).collect()
    }
}

fn read_rules(path: &str) -> (String, Vec<Rule>) {
    let text = fs::read_to_string(path).expect("rules file");
    let mut default = String::from("chat");
    let mut rules = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        match f[0] {
            "default" => default = unhex(f[1]),
            "rule" => rules.push(Rule {
                label: unhex(f[1]),
                priority: f[2].parse().expect("priority"),
                keywords: list(f[3]),
                contexts: list(f[4]),
            }),
            _ => {}
        }
    }
    (default, rules)
}

fn read_prompts(path: &str) -> Vec<(String, HashSet<String>)> {
    let text = fs::read_to_string(path).expect("prompts file");
    text.lines()
        .map(|line| {
            let mut f = line.split(' ');
            let field = f.next().unwrap_or("-");
            let prompt = if field == "-" { String::new() } else { unhex(field) };
            let contexts = list(f.next().unwrap_or("-")).into_iter().collect();
            (prompt, contexts)
        })
        .collect()
}

fn main() {
    let args: Vec<String> = env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("tokenize") => {
            let text = fs::read_to_string(&args[2]).expect("prompts file");
            let mut out = String::new();
            for line in text.lines() {
                let field = line.split(' ').next().unwrap_or("-");
                let prompt = if field == "-" { String::new() } else { unhex(field) };
                let toks: Vec<String> = tokenize(&prompt).iter().map(|t| hex(t)).collect();
                out.push_str(&toks.join(","));
                out.push('\n');
            }
            print!("{out}");
        }
        Some("classify") => {
            let (_default, rules) = read_rules(&args[2]);
            let prompts = read_prompts(&args[3]);
            let mut out = String::new();
            for (prompt, contexts) in &prompts {
                let o = classify(&rules, prompt, contexts);
                let rule = o.rule.map_or("-".to_string(), |r| r.to_string());
                let kw = o.keyword.map_or("-".to_string(), hex);
                let ctx = o.context.map_or("-".to_string(), hex);
                out.push_str(&format!("{rule} {kw} {} {ctx}\n", u8::from(o.fuzzy)));
            }
            print!("{out}");
        }
        Some("bench") => {
            let (default, rules) = read_rules(&args[2]);
            let prompts = read_prompts(&args[3]);
            let reps: usize = args.get(4).map_or(1, |r| r.parse().expect("reps"));
            let mut checksum = 0usize;
            let mut per_prompt = vec![u128::MAX; prompts.len()];
            let start = Instant::now();
            for _ in 0..reps {
                for (i, (prompt, contexts)) in prompts.iter().enumerate() {
                    let t = Instant::now();
                    let o = classify(&rules, prompt, contexts);
                    let label = o.rule.map_or(default.as_str(), |r| rules[r].label.as_str());
                    checksum = checksum.wrapping_add(label.len() + o.rule.unwrap_or(0));
                    per_prompt[i] = per_prompt[i].min(t.elapsed().as_nanos());
                }
            }
            let total = start.elapsed().as_nanos() / reps as u128;
            per_prompt.sort_unstable();
            let median = if per_prompt.is_empty() { 0 } else { per_prompt[per_prompt.len() / 2] };
            println!("total_ns {total}");
            println!("median_ns {median}");
            println!("checksum {checksum}");
        }
        _ => {
            eprintln!("usage: smista_rust_baseline classify|tokenize|bench ...");
            std::process::exit(2);
        }
    }
}
