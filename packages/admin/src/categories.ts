import type { Schemas } from '@commerce/sdk';

export type Category = Schemas['CategoryResponseDto'];
export type CategoryNode = Category & { children: CategoryNode[] };

/**
 * The tree of the categories, each level in the API's order (position, then id). A category whose parent is
 * not in the list (deleted, since the API keeps no child under a deleted parent, or unreadable) is shown at the top.
 */
export function buildTree(categories: Category[]): CategoryNode[] {
  const nodes = new Map<number, CategoryNode>(categories.map((c) => [c.id, { ...c, children: [] }]));
  const roots: CategoryNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parent_id === null ? undefined : nodes.get(node.parent_id);
    (parent === undefined ? roots : parent.children).push(node);
  }
  return roots;
}

/** The tree in reading order with each category's depth: the options of a category select. */
export function flattenTree(roots: CategoryNode[], depth = 0): { category: CategoryNode; depth: number }[] {
  return roots.flatMap((node) => [{ category: node, depth }, ...flattenTree(node.children, depth + 1)]);
}

/** The ids of a category and of every category below it: where it may not be moved to. */
export function subtreeIds(node: CategoryNode): Set<number> {
  return new Set([node.id, ...node.children.flatMap((child) => [...subtreeIds(child)])]);
}

/** Options for a category select: indented by depth (with non-breaking spaces, as `<option>` keeps no markup). */
export function categoryOptions(categories: Category[], exclude = new Set<number>()) {
  return flattenTree(buildTree(categories))
    .filter(({ category }) => !exclude.has(category.id))
    .map(({ category, depth }) => ({
      value: category.id,
      label: `${'\u00a0\u00a0'.repeat(depth)}${category.name}${category.is_active ? '' : ' (inactive)'}`,
    }));
}
