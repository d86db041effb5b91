//! Text handling: normalization, word tokenizing, sentence splitting, stopwords.

pub mod normalize;
pub mod stopwords;
pub mod tokenize;

pub use normalize::{Normalization, Punctuation, UnicodeForm};
pub use stopwords::is_stopword;
pub use tokenize::{Tokenizer, sentences};
