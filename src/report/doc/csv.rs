//! A table as CSV: a head row of the column names, then a row per row of cells, each number its
//! raw value (the column's name says its unit); a group's name is no row. A field a spreadsheet
//! would run as a formula is made text.

use super::{Row, Table};
use crate::error::{Error, Result};

/// The table as CSV.
pub fn csv(table: &Table) -> Result<String> {
    let mut writer = ::csv::Writer::from_writer(Vec::new());
    let failed = |e: ::csv::Error| Error::Io(std::io::Error::other(e));
    writer.write_record(table.columns.iter().map(|c| formula_safe(&c.name))).map_err(failed)?;
    for row in &table.rows {
        if let Row::Cells(_, cells) = row {
            let mut fields: Vec<String> = cells.iter().map(|c| formula_safe(&c.raw())).collect();
            fields.resize(table.columns.len().max(fields.len()), String::new());
            writer.write_record(fields).map_err(failed)?;
        }
    }
    let bytes = writer.into_inner().map_err(|e| Error::Io(e.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A CSV field a spreadsheet will not run: one that starts with `=`, `+`, `-`, `@`, a tab or a
/// carriage return (a formula to Excel, LibreOffice and Google Sheets, OWASP's CSV injection) gets
/// a leading `'`, which spreadsheets show as text. perftest's own fields never start so; a name
/// from an edited or hostile run might. A number is its value, a sign and all.
fn formula_safe(field: &str) -> String {
    let number = field.parse::<f64>().is_ok();
    match field.starts_with(['=', '+', '-', '@', '\t', '\r']) && !number {
        true => format!("'{field}"),
        false => field.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::doc::{Cell, Column, Hint};

    #[test]
    fn numbers_are_raw_and_formulas_are_text() {
        let mut table = Table::new(vec![Column::left("case"), Column::right("rate_ops_per_s", 0)]);
        table.rows.push(Row::Group("fp32".into()));
        table.push(None, vec![Cell::text("=cmd()"), Cell::number(-4.12e12, "ops/s", Hint::Si)]);
        table.push(None, vec![Cell::text("sin")]);
        assert_eq!(csv(&table).unwrap(), "case,rate_ops_per_s\n'=cmd(),-4120000000000\nsin,\n");
    }
}
