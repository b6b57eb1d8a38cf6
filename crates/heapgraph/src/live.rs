//! Which objects of a heap count as alive.

use std::borrow::Cow;

/// The objects that count: every one, or those marked (what [`crate::reachable`] marks). A heap
/// dump holds only what the VM keeps alive, so its importer marks nothing: a table of a byte an
/// object, fresh memory, saved.
#[derive(Debug, Clone, Copy)]
pub enum Live<'a> {
    All,
    Marked(&'a [bool]),
}

impl<'a> Live<'a> {
    pub fn has(self, o: usize) -> bool {
        match self {
            Live::All => true,
            Live::Marked(marks) => marks[o],
        }
    }

    /// The marks of `n` objects, made where every one counts.
    pub fn marks(self, n: usize) -> Cow<'a, [bool]> {
        match self {
            Live::All => Cow::Owned(vec![true; n]),
            Live::Marked(marks) => Cow::Borrowed(marks),
        }
    }

    /// The bytes the marks take.
    pub fn bytes(self) -> usize {
        match self {
            Live::All => 0,
            Live::Marked(marks) => marks.len(),
        }
    }
}

impl<'a> From<&'a [bool]> for Live<'a> {
    fn from(marks: &'a [bool]) -> Live<'a> {
        Live::Marked(marks)
    }
}

impl<'a> From<&'a Vec<bool>> for Live<'a> {
    fn from(marks: &'a Vec<bool>) -> Live<'a> {
        Live::Marked(marks)
    }
}
