//! Text handling: normalization, languages, word tokenizing and Chinese segmentation,
//! sentence splitting, stopwords.

mod ascii_runs;
pub mod language;
pub mod normalize;
pub mod segment;
pub mod stopwords;
pub mod tokenize;

pub use language::Language;
pub use normalize::{Normalization, Punctuation, UnicodeForm};
pub use stopwords::{is_stopword, is_stopword_in};
pub use tokenize::{CjkUnit, Tokenizer, WordParams, sentences};
