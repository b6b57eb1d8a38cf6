//! The description language (docs/structures.md): which types make up a data structure.
//!
//! ```text
//! namespace java.util;            // bare names below mean java.util.NAME
//! DS LinkedList { *; }            // a head: where a structure starts
//! LinkedList$Node {               // an internal part
//!     LinkedList$Node;            // points to more of the structure
//!     (*);                        // and to leaves of any type
//! }
//! ```
//!
//! Names may hold `*` wildcards; a name in parentheses is a leaf; names with spaces or
//! parentheses (V8's `(object elements)`) are written in double quotes. Comments run from `//`
//! or `#` to the end of the line.

use std::path::Path;

use thiserror::Error;

/// The largest description file read (a user's own, given with `--structures`).
pub const MAX_FILE_BYTES: u64 = 4 << 20;
/// The longest type name.
const MAX_NAME: usize = 1024;

/// A type a part points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointedTo {
    /// A type name, possibly with `*` wildcards.
    pub pattern: String,
    /// Whether objects of this type are leaves: they belong to the structure but the descent
    /// stops there.
    pub leaf: bool,
}

/// One described type: a head or an internal part, and the types it may point to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    pub pattern: String,
    pub head: bool,
    pub pointed_to: Vec<PointedTo>,
    /// Where it was written, for warnings: `file:line`.
    pub origin: String,
}

/// Descriptions from one or more files, in the order read: a later description of the same
/// pattern replaces an earlier one, so a user's file overrides the built-in ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Descriptions {
    pub list: Vec<Description>,
}

impl Descriptions {
    pub fn extend(&mut self, more: Descriptions) {
        for d in more.list {
            self.list.retain(|e| e.pattern != d.pattern);
            self.list.push(d);
        }
    }
}

/// A description file that cannot be read: one line, `FILE:LINE:COLUMN: message`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct ParseError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The built-in descriptions: the JDK's collections, JavaScript's and Python's.
pub fn builtin() -> Descriptions {
    let mut all = Descriptions::default();
    for (name, text) in BUILTIN {
        all.extend(parse(name, text).expect("the built-in descriptions parse"));
    }
    all
}

/// The built-in description files, by name.
pub const BUILTIN: [(&str, &str); 3] = [
    ("data/structures/java.ds", include_str!("../../../data/structures/java.ds")),
    ("data/structures/javascript.ds", include_str!("../../../data/structures/javascript.ds")),
    ("data/structures/python.ds", include_str!("../../../data/structures/python.ds")),
];

/// Reads a description file, or every `*.ds` file of a folder in name order.
pub fn load_path(path: &Path) -> Result<Descriptions, ParseError> {
    let fail = |message: String| ParseError { file: path.display().to_string(), line: 0, column: 0, message };
    let files = if path.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(path)
            .map_err(|e| fail(format!("cannot read the folder: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "ds") && p.is_file())
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(fail("no .ds description files in this folder".into()));
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut all = Descriptions::default();
    for file in files {
        let fail =
            |message: String| ParseError { file: file.display().to_string(), line: 0, column: 0, message };
        let size = std::fs::metadata(&file).map_err(|e| fail(format!("cannot read: {e}")))?.len();
        if size > MAX_FILE_BYTES {
            return Err(fail(format!(
                "{size} bytes: larger than the {MAX_FILE_BYTES} bytes a description file may have"
            )));
        }
        let bytes = std::fs::read(&file).map_err(|e| fail(format!("cannot read: {e}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| fail(format!("not UTF-8 text (at byte {})", e.utf8_error().valid_up_to())))?;
        all.extend(parse(&file.display().to_string(), &text)?);
    }
    Ok(all)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Name { text: String, quoted: bool },
    Open,
    Close,
    LeftParen,
    RightParen,
    Semicolon,
    End,
}

impl Token {
    fn shown(&self) -> String {
        match self {
            Token::Name { text, .. } => format!("{text:?}"),
            Token::Open => "'{'".into(),
            Token::Close => "'}'".into(),
            Token::LeftParen => "'('".into(),
            Token::RightParen => "')'".into(),
            Token::Semicolon => "';'".into(),
            Token::End => "the end of the file".into(),
        }
    }
}

/// Characters of a bare name: what class and type names are made of, and `*`.
fn bare(c: char) -> bool {
    c.is_alphanumeric() || "_$.*[]<>:/-@".contains(c)
}

struct Lexer<'a> {
    file: &'a str,
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
}

impl Lexer<'_> {
    fn error(&self, line: usize, column: usize, message: String) -> ParseError {
        ParseError { file: self.file.to_string(), line, column, message }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    /// The next token and where it starts.
    fn next(&mut self) -> Result<(Token, usize, usize), ParseError> {
        loop {
            match self.chars.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('#') => self.skip_line(),
                Some('/') => {
                    let mut ahead = self.chars.clone();
                    ahead.next();
                    if ahead.peek() == Some(&'/') {
                        self.skip_line();
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        let (line, column) = (self.line, self.column);
        let Some(c) = self.bump() else { return Ok((Token::End, line, column)) };
        let token = match c {
            '{' => Token::Open,
            '}' => Token::Close,
            '(' => Token::LeftParen,
            ')' => Token::RightParen,
            ';' => Token::Semicolon,
            '"' => Token::Name { text: self.quoted(line, column)?, quoted: true },
            c if bare(c) => {
                let mut text = String::from(c);
                while let Some(&c) = self.chars.peek() {
                    if !bare(c) || c == '/' && self.chars.clone().nth(1) == Some('/') {
                        break;
                    }
                    text.push(c);
                    self.bump();
                    self.check_length(&text, line, column)?;
                }
                Token::Name { text, quoted: false }
            }
            c => return Err(self.error(line, column, format!("unexpected character {c:?}"))),
        };
        Ok((token, line, column))
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }

    fn quoted(&mut self, line: usize, column: usize) -> Result<String, ParseError> {
        let mut text = String::new();
        loop {
            match self.bump() {
                None | Some('\n') => {
                    return Err(self.error(line, column, "a quoted name is not closed on its line".into()));
                }
                Some('"') => return Ok(text),
                Some('\\') => match self.bump() {
                    Some(c @ ('"' | '\\')) => text.push(c),
                    _ => {
                        return Err(self.error(
                            self.line,
                            self.column - 1,
                            "only \\\" and \\\\ may follow a backslash".into(),
                        ));
                    }
                },
                Some(c) if c.is_control() => {
                    return Err(self.error(
                        self.line,
                        self.column - 1,
                        "a control character in a name".into(),
                    ));
                }
                Some(c) => text.push(c),
            }
            self.check_length(&text, line, column)?;
        }
    }

    fn check_length(&self, text: &str, line: usize, column: usize) -> Result<(), ParseError> {
        if text.len() > MAX_NAME {
            return Err(self.error(line, column, format!("a name longer than {MAX_NAME} bytes")));
        }
        Ok(())
    }
}

/// Parses one description file; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Descriptions, ParseError> {
    let mut lexer = Lexer { file, chars: text.chars().peekable(), line: 1, column: 1 };
    let mut namespace = String::new();
    let mut list: Vec<Description> = Vec::new();
    loop {
        let (token, line, column) = lexer.next()?;
        let expected = |what: &str, found: &Token| {
            lexer.error(line, column, format!("expected {what}, found {}", found.shown()))
        };
        match token {
            Token::End => break,
            Token::Name { text, quoted: false } if text == "namespace" => {
                let (name, l, c) = lexer.next()?;
                namespace = match name {
                    Token::Name { text, .. } if !text.contains('*') => text,
                    Token::Semicolon => String::new(),
                    other => {
                        return Err(lexer.error(
                            l,
                            c,
                            format!("expected a namespace name, found {}", other.shown()),
                        ));
                    }
                };
                if !namespace.is_empty() {
                    expect(&mut lexer, Token::Semicolon, "';' after the namespace")?;
                }
            }
            Token::Name { text, quoted } => {
                let (head, name, quoted) = if text == "DS" && !quoted {
                    match lexer.next()? {
                        (Token::Name { text, quoted }, _, _) => (true, text, quoted),
                        (other, l, c) => {
                            return Err(lexer.error(
                                l,
                                c,
                                format!("expected a type name after DS, found {}", other.shown()),
                            ));
                        }
                    }
                } else {
                    (false, text, quoted)
                };
                expect(&mut lexer, Token::Open, "'{' after the type name")?;
                let pointed_to = pointed_to(&mut lexer, &namespace)?;
                let pattern = qualify(&namespace, name, quoted);
                list.retain(|d| d.pattern != pattern);
                list.push(Description { pattern, head, pointed_to, origin: format!("{file}:{line}") });
            }
            other => return Err(expected("a type description (DS NAME { … }) or namespace", &other)),
        }
    }
    Ok(Descriptions { list })
}

fn expect(lexer: &mut Lexer, want: Token, what: &str) -> Result<(), ParseError> {
    let (token, line, column) = lexer.next()?;
    if token != want {
        return Err(lexer.error(line, column, format!("expected {what}, found {}", token.shown())));
    }
    Ok(())
}

/// The pointed-to types between the braces, up to and including `}`.
fn pointed_to(lexer: &mut Lexer, namespace: &str) -> Result<Vec<PointedTo>, ParseError> {
    let mut out = Vec::new();
    loop {
        let (token, line, column) = lexer.next()?;
        let (pattern, leaf) = match token {
            Token::Close => return Ok(out),
            Token::Name { text, quoted } => (qualify(namespace, text, quoted), false),
            Token::LeftParen => {
                let (name, l, c) = lexer.next()?;
                let Token::Name { text, quoted } = name else {
                    return Err(lexer.error(
                        l,
                        c,
                        format!("expected a leaf type name, found {}", name.shown()),
                    ));
                };
                expect(lexer, Token::RightParen, "')' after the leaf type")?;
                (qualify(namespace, text, quoted), true)
            }
            other => {
                return Err(lexer.error(
                    line,
                    column,
                    format!("expected a pointed-to type or '}}', found {}", other.shown()),
                ));
            }
        };
        out.push(PointedTo { pattern, leaf });
        expect(lexer, Token::Semicolon, "';' after a pointed-to type")?;
    }
}

/// A bare name without a package (no `.`) and not starting with a wildcard gets the
/// namespace; quoted names and qualified ones stand as written.
fn qualify(namespace: &str, name: String, quoted: bool) -> String {
    if quoted || namespace.is_empty() || name.contains('.') || name.starts_with('*') {
        name
    } else {
        format!("{namespace}.{name}")
    }
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters.
pub fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests;
