//! The parser of the description language: a file is a list of `namespace` lines and type
//! descriptions. The grammar nests only one level of braces and one of parentheses, so its
//! depth is bounded by construction; the text's size is bounded by [`MAX_FILE_BYTES`].

use super::lex::{Lexer, Token};
use super::{
    Description, Descriptions, MAX_FILE_BYTES, ParseError, PointedTo, Role, RoleKind, Step, keep_last,
};

/// Parses one description file; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Descriptions, ParseError> {
    if text.len() as u64 > MAX_FILE_BYTES {
        let message = format!(
            "{} bytes: larger than the {MAX_FILE_BYTES} bytes a description file may have",
            text.len()
        );
        return Err(ParseError { file: file.to_string(), line: 1, column: 1, message });
    }
    let mut lexer = Lexer::new(file, text);
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
                let (pointed_to, roles) = pointed_to(&mut lexer, &namespace)?;
                let pattern = qualify(&namespace, name, quoted);
                list.push(Description { pattern, head, pointed_to, roles, origin: format!("{file}:{line}") });
            }
            other => return Err(expected("a type description (DS NAME { … }) or namespace", &other)),
        }
    }
    Ok(Descriptions { list: keep_last(list) })
}

fn expect(lexer: &mut Lexer, want: Token, what: &str) -> Result<(), ParseError> {
    let (token, line, column) = lexer.next()?;
    if token != want {
        return Err(lexer.error(line, column, format!("expected {what}, found {}", token.shown())));
    }
    Ok(())
}

/// The pointed-to types and roles between the braces, up to and including `}`.
fn pointed_to(lexer: &mut Lexer, namespace: &str) -> Result<(Vec<PointedTo>, Vec<Role>), ParseError> {
    let mut out = Vec::new();
    let mut roles = Vec::new();
    loop {
        let (token, line, column) = lexer.next()?;
        let (pattern, leaf) = match token {
            Token::Close => return Ok((out, roles)),
            Token::Name { text, quoted: false } if role_kind(&text).is_some() => {
                // `key .key;` is a role; `key;` a type that happens to be named so.
                match lexer.next()? {
                    (Token::Semicolon, _, _) => {
                        out.push(PointedTo { pattern: qualify(namespace, text, false), leaf: false });
                        continue;
                    }
                    (Token::Name { text: path, quoted: false }, l, c) => {
                        let path = role_path(&path).ok_or_else(|| {
                            lexer.error(
                                l,
                                c,
                                format!("expected a path of .field, [*], ['*'] and ? steps, found {path:?}"),
                            )
                        })?;
                        let kind = role_kind(&text).expect("checked");
                        if kind == RoleKind::Pairs && path.last() != Some(&Step::Each) {
                            return Err(lexer.error(
                                l,
                                c,
                                format!(
                                    "expected a path ending in [*] after \"pairs\", found {:?}",
                                    path_text(&path)
                                ),
                            ));
                        }
                        roles.push(Role { kind, path });
                        expect(lexer, Token::Semicolon, "';' after a role's path")?;
                        continue;
                    }
                    (other, l, c) => {
                        return Err(lexer.error(
                            l,
                            c,
                            format!("expected ';' or a role's path after {text:?}, found {}", other.shown()),
                        ));
                    }
                }
            }
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

fn role_kind(word: &str) -> Option<RoleKind> {
    match word {
        "key" => Some(RoleKind::Key),
        "value" => Some(RoleKind::Value),
        "element" => Some(RoleKind::Element),
        "keys" => Some(RoleKind::Keys),
        "walk" => Some(RoleKind::Walk),
        "requires" => Some(RoleKind::Requires),
        "keyset" => Some(RoleKind::Keyset),
        "entries" => Some(RoleKind::Entries),
        "pairs" => Some(RoleKind::Pairs),
        _ => None,
    }
}

/// `.table[*].key` as steps; `None` unless the whole text is `.name`, `[*]`, `['*']` and `?`
/// steps, at least one.
fn role_path(text: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("[*]") {
            steps.push(Step::Each);
            rest = after;
        } else if let Some(after) = rest.strip_prefix("['*']") {
            steps.push(Step::Keyed);
            rest = after;
        } else if let Some(after) = rest.strip_prefix('?') {
            steps.push(Step::Unnamed);
            rest = after;
        } else {
            let after = rest.strip_prefix('.')?;
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let name = &after[..end];
            if name.is_empty() || name.contains(['*', ']']) {
                return None;
            }
            steps.push(Step::Field(name.to_string()));
            rest = &after[end..];
        }
    }
    (!steps.is_empty()).then_some(steps)
}

/// A path as written.
fn path_text(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Field(name) => format!(".{name}"),
            Step::Each => "[*]".into(),
            Step::Keyed => "['*']".into(),
            Step::Unnamed => "?".into(),
        })
        .collect()
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
