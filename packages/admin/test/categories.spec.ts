import { describe, expect, it } from '@jest/globals';
import { buildTree, categoryOptions, flattenTree, subtreeIds, type Category } from '../src/categories';

function category(id: number, name: string, parent_id: number | null, is_active = true): Category {
  const at = '2026-11-25T10:00:00.000Z';
  return {
    id,
    name,
    slug: name.toLowerCase(),
    parent_id,
    description: '',
    position: 0,
    is_active,
    created_at: at,
    updated_at: at,
  };
}

// In the API's order (position, then id), as GET /categories lists them.
const all = [
  category(1, 'Lamps', null),
  category(2, 'Desk', 1),
  category(3, 'Shirts', null, false),
  category(4, 'Floor', 1),
  category(5, 'Reading', 2),
  category(6, 'Orphan', 99),
];

describe('the category tree', () => {
  it('nests children under their parents in list order; a missing parent puts the category at the top', () => {
    const tree = buildTree(all);
    expect(tree.map((node) => node.name)).toEqual(['Lamps', 'Shirts', 'Orphan']);
    expect(tree[0]!.children.map((node) => node.name)).toEqual(['Desk', 'Floor']);
    expect(tree[0]!.children[0]!.children.map((node) => node.name)).toEqual(['Reading']);
  });

  it('flattens in reading order with depths', () => {
    expect(flattenTree(buildTree(all)).map(({ category: c, depth }) => `${depth}:${c.name}`)).toEqual([
      '0:Lamps',
      '1:Desk',
      '2:Reading',
      '1:Floor',
      '0:Shirts',
      '0:Orphan',
    ]);
  });

  it('knows a category with everything below it (where it may not move)', () => {
    expect([...subtreeIds(buildTree(all)[0]!)].sort()).toEqual([1, 2, 4, 5]);
  });

  it('gives select options indented by depth, marking inactive ones, without the excluded', () => {
    const options = categoryOptions(all, new Set([2, 5]));
    expect(options.map((option) => option.label)).toEqual([
      'Lamps',
      '\u00a0\u00a0Floor',
      'Shirts (inactive)',
      'Orphan',
    ]);
    expect(options.map((option) => option.value)).toEqual([1, 4, 3, 6]);
  });
});
