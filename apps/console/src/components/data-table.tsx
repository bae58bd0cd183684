import type { ReactNode, TableHTMLAttributes } from 'react';

export interface DataTableProps<Row> extends Omit<TableHTMLAttributes<HTMLTableElement>, 'children'> {
  /** Said to screen readers only (the page's heading already says it to everyone else). */
  caption?: ReactNode;
  /** The column headings, left to right. */
  columns: ReactNode[];
  rows: readonly Row[];
  /** One `<tr>` (with its key) per row. */
  row: (row: Row, index: number) => ReactNode;
  /**
   * Shown instead of the table when there are no rows; `null` shows nothing (e.g. while the query
   * still loads). Without it a table with no rows still shows its headings.
   */
  empty?: ReactNode;
  /** The `<tfoot>` rows, e.g. a sum. */
  footer?: ReactNode;
}

/**
 * A table as the console's pages draw one: an sr-only caption, one row of column headings
 * (`scope="col"`), a row per item, and the page's own words when there is nothing to list.
 */
export function DataTable<Row>({ caption, columns, rows, row, empty, footer, ...table }: DataTableProps<Row>) {
  if (rows.length === 0 && empty !== undefined) return empty;
  return (
    <table {...table}>
      {caption ? <caption className="sr-only">{caption}</caption> : null}
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{rows.map(row)}</tbody>
      {footer ? <tfoot>{footer}</tfoot> : null}
    </table>
  );
}
