//! A table of typed cells: a number keeps its value, its unit and how it is shown, so text and
//! markdown show `15.93 ops/clk/SM` and CSV the raw value; a cell without a number says why.

use crate::format::{ns_text, ratio_text, seconds_text, si, sig4};

/// A table: its columns and its rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// The columns, left to right.
    pub columns: Vec<Column>,
    /// The rows, top to bottom.
    pub rows: Vec<Row>,
    /// Whether text shows the head row (a table under a title that says what its columns hold
    /// shows none there; markdown and HTML always do).
    pub text_head: bool,
}

/// A column: its name, which side its cells keep to and, for text, its least width.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Its name in the head row.
    pub name: String,
    /// Where its cells sit in text.
    pub align: Align,
    /// The least width of its cells in text.
    pub width: usize,
}

/// Which side a column's cells keep to in text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Words.
    Left,
    /// Numbers.
    Right,
}

/// A row of the table.
#[derive(Clone, Debug, PartialEq)]
pub enum Row {
    /// Cells with the row's anchor, if any. A row shorter than the columns whose last cell is
    /// [`Cell::Missing`] lets that cell span the rest.
    Cells(Option<String>, Vec<Cell>),
    /// A group's name above the rows that follow (text indents those rows under it).
    Group(String),
}

/// One cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Words.
    Text(String),
    /// A number.
    Number(Number),
    /// No number, and why (`skipped (the device lacks shaderFloat64)`, `unknown`); empty: blank.
    Missing(String),
}

/// A number with its unit and how it is shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Number {
    /// The value, in `unit`.
    pub value: f64,
    /// Its unit (`ops/clk/SM`; for [`Hint::Si`] the unit the prefix goes before).
    pub unit: String,
    /// How text shows it.
    pub hint: Hint,
    /// Words after it (`(2.00x)`), or none.
    pub note: String,
}

/// How a number is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hint {
    /// Four significant digits (`15.93`).
    Sig4,
    /// Four significant digits with an SI prefix (`4.12 Tops/s`).
    Si,
    /// A time in nanoseconds as the run shows times (`11.63 ns`, `2.100 us`).
    Nanoseconds,
    /// A ratio (`2.985x`).
    Ratio,
    /// A fixed number of decimals (`20.000`).
    Fixed(u8),
    /// A percentage with one decimal (`67.3%`).
    Percent,
    /// A time in seconds as run times are said (`415 s`, `0.42 s`).
    Seconds,
}

impl Cell {
    /// Words as a cell.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(text.into())
    }

    /// A number shown by `hint`, with `unit` after it (none where empty).
    pub fn number(value: f64, unit: &str, hint: Hint) -> Self {
        Self::Number(Number { value, unit: unit.to_owned(), hint, note: String::new() })
    }

    /// A number where there is one, else a blank cell.
    pub fn maybe(value: Option<f64>, unit: &str, hint: Hint) -> Self {
        value.map_or(Self::Missing(String::new()), |v| Self::number(v, unit, hint))
    }

    /// This number with `note` after it.
    pub fn noted(self, note: String) -> Self {
        match self {
            Self::Number(n) => Self::Number(Number { note, ..n }),
            other => other,
        }
    }

    /// The cell as text and markdown show it.
    pub fn shown(&self) -> String {
        match self {
            Self::Text(text) | Self::Missing(text) => text.clone(),
            Self::Number(n) => {
                let with_unit = |v: String| match n.unit.is_empty() {
                    true => v,
                    false => format!("{v} {}", n.unit),
                };
                let number = match n.hint {
                    Hint::Sig4 => with_unit(sig4(n.value)),
                    Hint::Si => si(n.value, &n.unit),
                    Hint::Nanoseconds => ns_text(n.value),
                    Hint::Ratio => ratio_text(n.value),
                    Hint::Fixed(digits) => with_unit(format!("{:.*}", usize::from(digits), n.value)),
                    Hint::Percent => format!("{:.1}%", n.value),
                    Hint::Seconds => seconds_text(n.value),
                };
                match n.note.is_empty() {
                    true => number,
                    false => format!("{number} {}", n.note),
                }
            }
        }
    }

    /// The cell as CSV holds it: a number's raw value (its unit is the column's), words as they are.
    pub fn raw(&self) -> String {
        match self {
            Self::Number(n) => n.value.to_string(),
            other => other.shown(),
        }
    }
}

impl Column {
    /// A column of words.
    pub fn left(name: &str) -> Self {
        Self { name: name.to_owned(), align: Align::Left, width: 0 }
    }

    /// A column of numbers, at least `width` wide in text.
    pub fn right(name: &str, width: usize) -> Self {
        Self { name: name.to_owned(), align: Align::Right, width }
    }
}

impl Table {
    /// A table of `columns` with a head row everywhere, and no rows yet.
    pub fn new(columns: Vec<Column>) -> Self {
        Self { columns, rows: Vec::new(), text_head: true }
    }

    /// Adds a row of cells.
    pub fn push(&mut self, id: Option<String>, cells: Vec<Cell>) {
        self.rows.push(Row::Cells(id, cells));
    }

    /// The table with only the columns `keep` picks (by index), its rows' cells likewise.
    pub fn keep(self, keep: impl Fn(usize) -> bool) -> Self {
        let kept: Vec<usize> = (0..self.columns.len()).filter(|&c| keep(c)).collect();
        let pick = |cells: Vec<Cell>| -> Vec<Cell> {
            let spans = cells.len() < self.columns.len();
            match spans {
                true => cells,
                false => kept.iter().map(|&c| cells[c].clone()).collect(),
            }
        };
        let rows = self
            .rows
            .into_iter()
            .map(|row| match row {
                Row::Cells(id, cells) => Row::Cells(id, pick(cells)),
                group => group,
            })
            .collect();
        let columns = kept.iter().map(|&c| self.columns[c].clone()).collect();
        Self { columns, rows, text_head: self.text_head }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A table of a group, an anchored row whose second cell is missing, and a row one missing
    /// cell spans.
    pub(crate) fn sample() -> Table {
        let mut table = Table::new(vec![Column::left("case"), Column::right("rate", 0)]);
        table.text_head = false;
        table.rows.push(Row::Group("loads".into()));
        table.push(Some("case-b".into()), vec![Cell::text("Buffer<R8>"), Cell::Missing("skipped".into())]);
        table.push(None, vec![Cell::Missing("none".into())]);
        table
    }

    #[test]
    fn numbers_show_by_their_hint_and_keep_their_raw_value() {
        let fma = Cell::number(15.93, "ops/clk/SM", Hint::Sig4);
        assert_eq!((fma.shown(), fma.raw()), ("15.93 ops/clk/SM".into(), "15.93".into()));
        assert_eq!(Cell::number(4.12e12, "ops/s", Hint::Si).shown(), "4.12 Tops/s");
        assert_eq!(Cell::number(11.63, "", Hint::Nanoseconds).shown(), "11.63 ns");
        assert_eq!(Cell::number(20.0, "", Hint::Fixed(3)).shown(), "20.000");
        assert_eq!(Cell::number(67.25, "", Hint::Percent).shown(), "67.2%");
        assert_eq!(Cell::number(64.0, "", Hint::Sig4).noted("(2.000x)".into()).shown(), "64.00 (2.000x)");
        assert_eq!(Cell::maybe(None, "clk", Hint::Sig4), Cell::Missing(String::new()));
    }

    #[test]
    fn keeping_columns_keeps_spanning_rows_whole() {
        let mut table = Table::new(vec![Column::left("op"), Column::right("a", 0), Column::right("b", 0)]);
        table.push(
            None,
            vec![Cell::text("x"), Cell::Missing(String::new()), Cell::number(1.0, "", Hint::Sig4)],
        );
        table.push(None, vec![Cell::text("y"), Cell::Missing("skipped (why)".into())]);
        let kept = table.keep(|c| c != 1);
        assert_eq!(kept.columns.len(), 2);
        assert_eq!(kept.rows[0], Row::Cells(None, vec![Cell::text("x"), Cell::number(1.0, "", Hint::Sig4)]));
        assert_eq!(
            kept.rows[1],
            Row::Cells(None, vec![Cell::text("y"), Cell::Missing("skipped (why)".into())])
        );
    }
}
