import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DataTable } from './data-table.tsx';

const row = (n: number) => (
  <tr key={n} data-testid={`row-${n}`}>
    <td>{n}</td>
  </tr>
);

describe('DataTable', () => {
  it('draws the sr-only caption, a heading per column, a row per item and the footer, with the table attributes passed on', () => {
    const html = renderToStaticMarkup(
      <DataTable data-testid="numbers" className="wide" caption="Numbers" columns={['N', <span>Twice</span>]} rows={[1, 2]} row={row} footer={<tr><td>sum</td></tr>} />,
    );
    expect(html).toBe(
      '<table data-testid="numbers" class="wide"><caption class="sr-only">Numbers</caption>' +
        '<thead><tr><th scope="col">N</th><th scope="col"><span>Twice</span></th></tr></thead>' +
        '<tbody><tr data-testid="row-1"><td>1</td></tr><tr data-testid="row-2"><td>2</td></tr></tbody>' +
        '<tfoot><tr><td>sum</td></tr></tfoot></table>',
    );
  });

  it('shows `empty` instead of a table with no rows, and nothing for `empty={null}`', () => {
    expect(renderToStaticMarkup(<DataTable columns={['N']} rows={[]} row={row} empty={<p data-testid="none">None yet.</p>} />)).toBe('<p data-testid="none">None yet.</p>');
    expect(renderToStaticMarkup(<DataTable columns={['N']} rows={[]} row={row} empty={null} />)).toBe('');
  });

  it('keeps its headings when there are no rows and no `empty`', () => {
    expect(renderToStaticMarkup(<DataTable columns={['N']} rows={[]} row={row} />)).toBe('<table><thead><tr><th scope="col">N</th></tr></thead><tbody></tbody></table>');
  });
});
