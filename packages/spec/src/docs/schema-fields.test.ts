import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { fieldRows, namer, typeOf } from './schema-fields.ts';

const Item = z.object({ id: z.string().describe('The id.') });
const Root = z.object({
  item: Item.describe('Linked, with its own description.'),
  items: z.array(Item),
  inline: z.object({ n: z.number().int().optional() }).nullable(),
  rows: z.array(z.object({ ok: z.boolean() })),
  tags: z.record(z.string(), z.string()).optional().describe('Free tags.'),
  kind: z.enum(['a', 'b']),
  value: z.json(),
  either: z.union([z.string(), z.number()]),
});
const nameOf = namer({ Root, Item });

describe('fieldRows', () => {
  it('flattens unnamed objects and array items, links named ones, keeps descriptions through wrappers', () => {
    expect(fieldRows(Root, nameOf)).toEqual([
      { path: 'item', type: '[Item](#item)', required: true, description: 'Linked, with its own description.' },
      { path: 'items', type: '[][Item](#item)', required: true, description: '' },
      { path: 'inline', type: 'object | null', required: true, description: '' },
      { path: 'inline.n', type: 'integer', required: false, description: '' },
      { path: 'rows', type: '[]object', required: true, description: '' },
      { path: 'rows[].ok', type: 'boolean', required: true, description: '' },
      { path: 'tags', type: 'map[string]string', required: false, description: 'Free tags.' },
      { path: 'kind', type: '"a" | "b"', required: true, description: '' },
      { path: 'value', type: 'JSON', required: true, description: '' },
      { path: 'either', type: 'string | number', required: true, description: '' },
    ]);
  });

  it('names a schema itself only where asked, and refuses zod types it has no rule for', () => {
    expect(typeOf(Item, nameOf)).toBe('[Item](#item)');
    expect(typeOf(Item, nameOf, false)).toBe('object');
    expect(() => typeOf(z.date(), nameOf)).toThrow(/no documentation rule for zod type "date"/);
  });
});
