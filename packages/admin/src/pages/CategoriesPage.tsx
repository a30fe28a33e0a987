import { useState, type FormEvent } from 'react';
import { buildTree, categoryOptions, subtreeIds, type Category, type CategoryNode } from '../categories';
import { client, loadCategories, succeed } from '../client';
import {
  ActiveBadge,
  Alert,
  Page,
  RowButton,
  SelectField,
  Status,
  TextField,
  useAction,
  useLoad,
} from '../ui';

const TOP_LEVEL = 'top';

/** One category of the tree: rename and move (in a panel opened by Edit) and delete. */
function CategoryItem({
  node,
  all,
  onChanged,
}: {
  node: CategoryNode;
  all: Category[];
  onChanged: (message: string) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(node.name);
  const [parent, setParent] = useState(node.parent_id === null ? TOP_LEVEL : String(node.parent_id));
  const action = useAction();
  const path = { params: { path: { id: node.id } } };

  const save = (event: FormEvent) => {
    event.preventDefault();
    const parentId = parent === TOP_LEVEL ? null : Number(parent);
    const body = {
      ...(name !== node.name && { name }),
      ...(parentId !== node.parent_id && { parent_id: parentId }),
    };
    void action
      .run(() => client.data(client.api.PUT('/categories/{id}', { ...path, body })))
      .then((ok) => {
        if (!ok) return;
        setEditing(false);
        onChanged(`Category ${name} saved.`);
      });
  };

  const remove = () => {
    if (!window.confirm(`Delete category ${node.name}?`)) return;
    void action
      .run(() => succeed(client.api.DELETE('/categories/{id}', path)))
      .then((ok) => {
        if (ok) onChanged(`Category ${node.name} deleted.`);
      });
  };

  return (
    <li>
      <div className="tree-row">
        <span className="name">{node.name}</span>
        <span className="hint">{node.slug}</span>
        {!node.is_active && <ActiveBadge active={false} />}
        <RowButton
          label="Edit"
          of={node.name}
          aria-expanded={editing}
          onClick={() => {
            setName(node.name);
            setParent(node.parent_id === null ? TOP_LEVEL : String(node.parent_id));
            setEditing(!editing);
          }}
        />
        <RowButton label="Delete" of={node.name} danger disabled={action.busy} onClick={remove} />
      </div>
      {editing && (
        <form className="inline-form" onSubmit={save} noValidate>
          <TextField
            label="Rename to"
            value={name}
            maxLength={200}
            error={action.fields.name}
            onChange={(event) => setName(event.target.value)}
          />
          <SelectField
            label="Move under"
            value={parent}
            options={[{ value: TOP_LEVEL, label: 'Top level' }, ...categoryOptions(all, subtreeIds(node))]}
            error={action.fields.parent_id}
            onChange={(event) => setParent(event.target.value)}
          />
          <button type="submit" disabled={action.busy}>
            Save<span className="visually-hidden"> {node.name}</span>
          </button>
        </form>
      )}
      <Alert message={action.error} />
      {node.children.length > 0 && (
        <ul>
          {node.children.map((child) => (
            <CategoryItem key={child.id} node={child} all={all} onChanged={onChanged} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function CategoriesPage() {
  const categories = useLoad(loadCategories, []);
  const [name, setName] = useState('');
  const [parent, setParent] = useState('');
  const [status, setStatus] = useState('');
  const create = useAction();

  const changed = (message: string) => {
    setStatus(message);
    void categories.reload();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create
      .run(() =>
        client.data(
          client.api.POST('/categories', {
            body: { name, ...(parent !== '' && { parent_id: Number(parent) }) },
          }),
        ),
      )
      .then((ok) => {
        if (!ok) return;
        changed(`Category ${name} created.`);
        setName('');
      });
  };

  const all = categories.data ?? [];
  return (
    <Page title="Categories">
      <Status message={status} />
      <section aria-labelledby="new-category">
        <h2 id="new-category">New category</h2>
        <form className="inline-form" onSubmit={submit} noValidate>
          <TextField
            label="Name"
            required
            maxLength={200}
            value={name}
            error={create.fields.name}
            onChange={(event) => setName(event.target.value)}
          />
          <SelectField
            label="Parent"
            value={parent}
            empty="None (top level)"
            options={categoryOptions(all)}
            error={create.fields.parent_id}
            onChange={(event) => setParent(event.target.value)}
          />
          <button type="submit" className="primary" disabled={create.busy}>
            Create category
          </button>
        </form>
        <Alert message={create.error} />
      </section>
      <section aria-labelledby="tree-heading">
        <h2 id="tree-heading">Tree</h2>
        <Alert message={categories.error} />
        {categories.data !== null &&
          (all.length === 0 ? (
            <p>No categories yet.</p>
          ) : (
            <ul className="tree">
              {buildTree(all).map((node) => (
                <CategoryItem key={node.id} node={node} all={all} onChanged={changed} />
              ))}
            </ul>
          ))}
      </section>
    </Page>
  );
}
