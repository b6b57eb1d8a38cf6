//! The lexer of the description language: names (bare or quoted), braces, parentheses and
//! semicolons, with each token's line and column for error messages.

use super::{MAX_NAME, ParseError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    Name { text: String, quoted: bool },
    Open,
    Close,
    LeftParen,
    RightParen,
    Semicolon,
    End,
}

impl Token {
    pub(super) fn shown(&self) -> String {
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

/// Characters of a bare name: what class and type names are made of, `*`, and the quote of
/// a role's `['*']` step.
fn bare(c: char) -> bool {
    c.is_alphanumeric() || "_$.*[]<>:/-@?'".contains(c)
}

pub(super) struct Lexer<'a> {
    file: &'a str,
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(file: &'a str, text: &'a str) -> Lexer<'a> {
        Lexer { file, chars: text.chars().peekable(), line: 1, column: 1 }
    }

    pub(super) fn error(&self, line: usize, column: usize, message: String) -> ParseError {
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
    pub(super) fn next(&mut self) -> Result<(Token, usize, usize), ParseError> {
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
            c => {
                return Err(self.error(
                    line,
                    column,
                    format!("expected a type name, '{{', '}}', '(', ')' or ';', found {c:?}"),
                ));
            }
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
                    return Err(self.error(
                        line,
                        column,
                        "expected '\"' to close the quoted name, found the end of the line".into(),
                    ));
                }
                Some('"') => return Ok(text),
                Some('\\') => match self.bump() {
                    Some(c @ ('"' | '\\')) => text.push(c),
                    _ => {
                        return Err(self.error(
                            self.line,
                            self.column - 1,
                            "expected \\\" or \\\\ after a backslash, found another character".into(),
                        ));
                    }
                },
                Some(c) if c.is_control() => {
                    return Err(self.error(
                        self.line,
                        self.column - 1,
                        "expected a name character, found a control character".into(),
                    ));
                }
                Some(c) => text.push(c),
            }
            self.check_length(&text, line, column)?;
        }
    }

    fn check_length(&self, text: &str, line: usize, column: usize) -> Result<(), ParseError> {
        if text.len() > MAX_NAME {
            return Err(self.error(
                line,
                column,
                format!("expected a name of at most {MAX_NAME} bytes, found a longer one"),
            ));
        }
        Ok(())
    }
}
