import { useEffect, useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { categoryOptions } from '../categories';
import { client, loadCategories, succeed } from '../client';
import { useCurrency } from '../currency';
import { formatMoney } from '../format';
import { PricesEditor } from '../prices';
import { otherPriceRows, pricesBody, samePrices, type PriceRow } from '../price-rows';
import { flashMessage, Link, navigate } from '../router';
import {
  ActiveBadge,
  Alert,
  CheckboxField,
  CountField,
  DataTable,
  Page,
  RowButton,
  SelectField,
  Status,
  TextArea,
  TextField,
  ToggleActiveButton,
  useAction,
  useLoad,
} from '../ui';

type Product = Schemas['ProductDetailResponseDto'];
type UpdateProduct = Schemas['UpdateProductDto'];
type Variant = Schemas['VariantResponseDto'];

/** A number input's value for the API: '' (nothing typed, or not a number) stays out of the body. */
function numberOrAbsent(value: string): number | undefined {
  return value.trim() === '' ? undefined : Number(value);
}

/** The fields of the product form that differ from the product: a partial update sends only those. */
function changedFields(product: Product, form: ProductForm): UpdateProduct {
  const price = numberOrAbsent(form.price);
  const stock = numberOrAbsent(form.stock);
  const category = numberOrAbsent(form.category);
  return {
    ...(form.name !== product.name && { name: form.name }),
    ...(form.description !== product.description && { description: form.description }),
    ...(price !== undefined && price !== product.price && { price }),
    ...(!samePrices(form.prices, product.prices) && { prices: pricesBody(form.prices) }),
    ...(form.taxClass.trim() !== product.tax_class && { tax_class: form.taxClass.trim() }),
    ...(stock !== undefined && stock !== product.stock && { stock }),
    ...(category !== undefined && category !== product.category_id && { category_id: category }),
    ...(form.active !== product.is_active && { is_active: form.active }),
  };
}

type ProductForm = {
  name: string;
  description: string;
  price: string;
  prices: PriceRow[];
  taxClass: string;
  stock: string;
  category: string;
  active: boolean;
};

function formOf(product: Product | null): ProductForm {
  if (product === null)
    return {
      name: '',
      description: '',
      price: '',
      prices: [],
      taxClass: 'standard',
      stock: '0',
      category: '',
      active: true,
    };
  return {
    name: product.name,
    description: product.description,
    price: String(product.price),
    prices: otherPriceRows(product.prices),
    taxClass: product.tax_class,
    stock: String(product.stock),
    category: String(product.category_id),
    active: product.is_active,
  };
}

function ProductForm({ product, onSaved }: { product: Product | null; onSaved: () => void }) {
  const currency = useCurrency();
  const [form, setForm] = useState(() => formOf(product));
  const categories = useLoad(loadCategories, []);
  const save = useAction();
  useEffect(() => setForm(formOf(product)), [product]);
  const set = (changes: Partial<ProductForm>) => setForm((current) => ({ ...current, ...changes }));
  const hasVariants = product !== null && product.variants.some((variant) => variant.is_active);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (product === null) {
      void save.run(async () => {
        const created = await client.data(
          client.api.POST('/products', {
            body: {
              name: form.name,
              description: form.description,
              price: numberOrAbsent(form.price) ?? 0,
              ...(form.prices.length > 0 && { prices: pricesBody(form.prices) }),
              tax_class: form.taxClass.trim(),
              category_id: numberOrAbsent(form.category) ?? 0,
              ...(numberOrAbsent(form.stock) !== undefined && { stock: numberOrAbsent(form.stock) }),
            },
          }),
        );
        // A new product is active; creating it inactive takes a second call.
        if (!form.active) {
          await client.data(
            client.api.PUT('/products/{id}', {
              params: { path: { id: created.id } },
              body: { is_active: false },
            }),
          );
        }
        navigate(`/products/${created.id}`, { replace: true, flash: `Product ${created.name} created.` });
      });
      return;
    }
    void save
      .run(
        () =>
          client.data(
            client.api.PUT('/products/{id}', {
              params: { path: { id: product.id } },
              body: changedFields(product, form),
            }),
          ),
        'Product saved.',
      )
      .then((ok) => {
        if (ok) onSaved();
      });
  };

  return (
    <form className="stacked" aria-label="Product" onSubmit={submit} noValidate>
      <Alert message={save.error ?? categories.error} />
      <TextField
        label="Name"
        required
        maxLength={200}
        value={form.name}
        error={save.fields.name}
        onChange={(event) => set({ name: event.target.value })}
      />
      <TextArea
        label="Description"
        maxLength={5000}
        value={form.description}
        error={save.fields.description}
        onChange={(event) => set({ description: event.target.value })}
      />
      <PricesEditor
        label="Price"
        price={form.price}
        onPrice={(price) => set({ price })}
        rows={form.prices}
        onRows={(prices) => set({ prices })}
        defaultCurrency={currency}
        fields={save.fields}
        priceHint={
          hasVariants ? 'With variants, each currency’s lowest price of the active variants.' : undefined
        }
      />
      <div className="form-row">
        <TextField
          label="Tax class"
          hint="The tax rates of this class apply (standard unless said); its variants use it too"
          required
          maxLength={32}
          value={form.taxClass}
          error={save.fields.tax_class}
          onChange={(event) => set({ taxClass: event.target.value })}
        />
        <CountField
          label="Stock"
          value={form.stock}
          error={save.fields.stock}
          hint={hasVariants ? 'The sum of the active variants’ stock.' : undefined}
          onChange={(event) => set({ stock: event.target.value })}
        />
      </div>
      <SelectField
        label="Category"
        required
        value={form.category}
        empty="Choose a category"
        options={categoryOptions(categories.data ?? [])}
        error={save.fields.category_id}
        onChange={(event) => set({ category: event.target.value })}
      />
      <CheckboxField
        label="Active"
        hint="Customers see and may order active products only."
        checked={form.active}
        error={save.fields.is_active}
        onChange={(event) => set({ active: event.target.checked })}
      />
      <button type="submit" className="primary" disabled={save.busy}>
        {product === null ? 'Create product' : 'Save product'}
      </button>
      <Status message={save.status} />
    </form>
  );
}

/** Options as the form edits them: each option's values as one comma-separated text. */
function OptionsForm({ product, onSaved }: { product: Product; onSaved: () => void }) {
  const [values, setValues] = useState<string[]>(() =>
    product.options.map((option) => option.values.join(', ')),
  );
  const [removed, setRemoved] = useState<string[]>([]);
  const [newName, setNewName] = useState('');
  const [newValues, setNewValues] = useState('');
  const save = useAction();
  useEffect(() => {
    setValues(product.options.map((option) => option.values.join(', ')));
    setRemoved([]);
  }, [product]);
  const split = (text: string) =>
    text
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== '');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const options = product.options
      .map((option, index) => ({ name: option.name, values: split(values[index] ?? '') }))
      .filter((option) => !removed.includes(option.name));
    if (newName.trim() !== '') options.push({ name: newName.trim(), values: split(newValues) });
    void save
      .run(
        () =>
          client.data(
            client.api.PUT('/products/{id}', { params: { path: { id: product.id } }, body: { options } }),
          ),
        'Options saved.',
      )
      .then((ok) => {
        if (!ok) return;
        setNewName('');
        setNewValues('');
        onSaved();
      });
  };

  return (
    <form aria-labelledby="options-heading" onSubmit={submit} noValidate>
      <h2 id="options-heading">Options</h2>
      <p className="hint">Values are separated by commas, e.g. “S, M, L”.</p>
      <Alert message={save.error} />
      {product.options.map((option, index) =>
        removed.includes(option.name) ? null : (
          <div className="form-row" key={option.name}>
            <TextField
              label={`Values of ${option.name}`}
              value={values[index] ?? ''}
              error={save.fields[`options.${index}.values`]}
              onChange={(event) =>
                setValues((all) => all.map((text, at) => (at === index ? event.target.value : text)))
              }
            />
            <button type="button" onClick={() => setRemoved((all) => [...all, option.name])}>
              Remove option {option.name}
            </button>
          </div>
        ),
      )}
      <div className="form-row">
        <TextField
          label="New option"
          hint="e.g. Size"
          value={newName}
          error={save.fields[`options.${product.options.length}.name`]}
          onChange={(event) => setNewName(event.target.value)}
        />
        <TextField
          label="Its values"
          hint="e.g. S, M, L"
          value={newValues}
          error={save.fields[`options.${product.options.length}.values`]}
          onChange={(event) => setNewValues(event.target.value)}
        />
      </div>
      {save.fields.options !== undefined && <p className="field-error">{save.fields.options}</p>}
      <button type="submit" disabled={save.busy}>
        Save options
      </button>
      <Status message={save.status} />
    </form>
  );
}

/** A variant's price and stock, changed by a partial update of the variant. */
function VariantEditor({
  productId,
  variant,
  onDone,
  onCancel,
}: {
  productId: number;
  variant: Variant;
  onDone: (message: string) => void;
  onCancel: () => void;
}) {
  const currency = useCurrency();
  const [price, setPrice] = useState(String(variant.price));
  const [prices, setPrices] = useState(() => otherPriceRows(variant.prices));
  const [stock, setStock] = useState(String(variant.stock));
  const save = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const newPrice = numberOrAbsent(price);
    const newStock = numberOrAbsent(stock);
    const body = {
      ...(newPrice !== variant.price && { price: newPrice ?? Number.NaN }),
      ...(!samePrices(prices, variant.prices) && { prices: pricesBody(prices) }),
      ...(newStock !== variant.stock && { stock: newStock ?? Number.NaN }),
    };
    void save
      .run(() =>
        client.data(
          client.api.PUT('/products/{id}/variants/{variantId}', {
            params: { path: { id: productId, variantId: variant.id } },
            body,
          }),
        ),
      )
      .then((ok) => {
        if (ok) onDone(`Variant ${variant.sku} saved.`);
      });
  };
  return (
    <form aria-labelledby="edit-variant-heading" onSubmit={submit} noValidate>
      <h3 id="edit-variant-heading">Edit variant {variant.sku}</h3>
      <Alert message={save.error} />
      <PricesEditor
        label="Variant price"
        price={price}
        onPrice={setPrice}
        rows={prices}
        onRows={setPrices}
        defaultCurrency={currency}
        fields={save.fields}
      />
      <div className="form-row">
        <CountField
          label="Variant stock"
          value={stock}
          error={save.fields.stock}
          onChange={(event) => setStock(event.target.value)}
        />
        <button type="submit" disabled={save.busy}>
          Save variant
        </button>
        <button type="button" onClick={onCancel}>
          Cancel editing
        </button>
      </div>
    </form>
  );
}

function Variants({ product, onChanged }: { product: Product; onChanged: () => void }) {
  const currency = useCurrency();
  const [sku, setSku] = useState('');
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [price, setPrice] = useState('');
  const [prices, setPrices] = useState<PriceRow[]>([]);
  const [stock, setStock] = useState('0');
  const add = useAction();
  const change = useAction();
  const [editing, setEditing] = useState<number | null>(null);
  const editingVariant = product.variants.find((variant) => variant.id === editing);
  const path = (variantId: number) => ({ params: { path: { id: product.id, variantId } } });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const options = Object.fromEntries(
      product.options.map((option) => [option.name, chosen[option.name] ?? '']),
    );
    void add
      .run(
        () =>
          client.data(
            client.api.POST('/products/{id}/variants', {
              params: { path: { id: product.id } },
              body: {
                sku,
                options,
                price: numberOrAbsent(price) ?? 0,
                ...(prices.length > 0 && { prices: pricesBody(prices) }),
                ...(numberOrAbsent(stock) !== undefined && { stock: numberOrAbsent(stock) }),
              },
            }),
          ),
        `Variant ${sku} added.`,
      )
      .then((ok) => {
        if (!ok) return;
        setSku('');
        setChosen({});
        setPrice('');
        setPrices([]);
        setStock('0');
        onChanged();
      });
  };

  const act = (done: string, call: () => Promise<unknown>) =>
    void change.run(call, done).then((ok) => {
      if (ok) onChanged();
    });

  return (
    <section aria-labelledby="variants-heading">
      <h2 id="variants-heading">Variants</h2>
      <p className="hint">Variants are taxed by the product’s tax class ({product.tax_class}).</p>
      <Alert message={change.error} />
      <Status message={change.status} />
      {product.variants.length === 0 ? (
        <p>No variants: the product is sold as it is.</p>
      ) : (
        <DataTable
          columns={[
            'SKU',
            'Title',
            ['Price', 'number'],
            'Other prices',
            ['Stock', 'number'],
            'State',
            'Actions',
          ]}
        >
          {product.variants.map((variant) => (
            <tr key={variant.id}>
              <th scope="row">{variant.sku}</th>
              <td>{variant.title}</td>
              <td className="number">{formatMoney(variant.price, currency)}</td>
              <td>
                {variant.prices
                  .slice(1)
                  .map((entry) => formatMoney(entry.amount, entry.currency_code))
                  .join(', ')}
              </td>
              <td className="number">{variant.stock}</td>
              <td>
                <ActiveBadge active={variant.is_active} />
              </td>
              <td className="actions">
                <RowButton
                  label="Edit"
                  of={`variant ${variant.sku}`}
                  aria-expanded={editing === variant.id}
                  onClick={() => setEditing(editing === variant.id ? null : variant.id)}
                />
                <ToggleActiveButton
                  active={variant.is_active}
                  of={`variant ${variant.sku}`}
                  busy={change.busy}
                  onToggle={(active) =>
                    act(`Variant ${variant.sku} ${active ? 'activated' : 'deactivated'}.`, () =>
                      client.data(
                        client.api.PUT('/products/{id}/variants/{variantId}', {
                          ...path(variant.id),
                          body: { is_active: active },
                        }),
                      ),
                    )
                  }
                />
                <RowButton
                  label="Delete"
                  of={`variant ${variant.sku}`}
                  danger
                  disabled={change.busy}
                  onClick={() => {
                    if (!window.confirm(`Delete variant ${variant.sku}?`)) return;
                    act(`Variant ${variant.sku} deleted.`, () =>
                      succeed(client.api.DELETE('/products/{id}/variants/{variantId}', path(variant.id))),
                    );
                  }}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {editingVariant !== undefined && (
        <VariantEditor
          key={editingVariant.id}
          productId={product.id}
          variant={editingVariant}
          onDone={(message) => {
            setEditing(null);
            change.setStatus(message);
            onChanged();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      <form aria-labelledby="add-variant-heading" onSubmit={submit} noValidate>
        <h3 id="add-variant-heading">Add variant</h3>
        <Alert message={add.error} />
        <div className="form-row">
          <TextField
            label="SKU"
            required
            maxLength={64}
            value={sku}
            error={add.fields.sku}
            onChange={(event) => setSku(event.target.value)}
          />
          {product.options.map((option) => (
            <SelectField
              key={option.name}
              label={option.name}
              required
              value={chosen[option.name] ?? ''}
              empty="Choose"
              options={option.values.map((value) => ({ value, label: value }))}
              error={add.fields[`options.${option.name}`] ?? add.fields.options}
              onChange={(event) => setChosen((all) => ({ ...all, [option.name]: event.target.value }))}
            />
          ))}
          <CountField
            label="Stock"
            value={stock}
            error={add.fields.stock}
            onChange={(event) => setStock(event.target.value)}
          />
        </div>
        <PricesEditor
          label="Price"
          price={price}
          onPrice={setPrice}
          rows={prices}
          onRows={setPrices}
          defaultCurrency={currency}
          fields={add.fields}
        />
        <button type="submit" disabled={add.busy}>
          Add variant
        </button>
        <Status message={add.status} />
      </form>
    </section>
  );
}

function Images({ product, onChanged }: { product: Product; onChanged: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [alt, setAlt] = useState('');
  const [inputKey, setInputKey] = useState(0);
  const upload = useAction();
  const remove = useAction();
  const current = product.images.map(({ url, alt: text }) => ({ url, alt: text }));
  const put = (images: { url: string; alt: string }[]) =>
    client.data(client.api.PUT('/products/{id}', { params: { path: { id: product.id } }, body: { images } }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void upload
      .run(async () => {
        if (file === null) throw new Error('choose a file first');
        // The upload stores the file; putting it in the product's images attaches it.
        const stored = await client.upload(file, { filename: file.name });
        await put([...current, { url: stored.filename, alt: alt.trim() }]);
      }, 'Image uploaded and attached.')
      .then((ok) => {
        if (!ok) return;
        setFile(null);
        setAlt('');
        setInputKey((key) => key + 1);
        onChanged();
      });
  };

  return (
    <section>
      <h2>Images</h2>
      <Alert message={remove.error} />
      <Status message={remove.status} />
      {product.images.length === 0 ? (
        <p>No images yet.</p>
      ) : (
        <ul className="thumbs">
          {product.images.map((image, index) => (
            <li key={image.url}>
              <img
                src={`/api/v1/uploads/${image.url}`}
                alt={image.alt !== '' ? image.alt : `${product.name}, picture ${index + 1}`}
              />
              <RowButton
                label="Remove"
                of={`picture ${index + 1}`}
                disabled={remove.busy}
                onClick={() =>
                  void remove
                    .run(() => put(current.filter((kept) => kept.url !== image.url)), 'Image removed.')
                    .then((ok) => {
                      if (ok) onChanged();
                    })
                }
              />
            </li>
          ))}
        </ul>
      )}
      <form className="inline-form" onSubmit={submit} noValidate>
        <TextField
          key={inputKey}
          label="Image"
          type="file"
          accept="image/jpeg,image/png,image/gif,image/webp"
          error={upload.fields.file}
          onChange={(event) => setFile(event.target.files?.[0] ?? null)}
        />
        <TextField
          label="Alt text"
          maxLength={255}
          value={alt}
          onChange={(event) => setAlt(event.target.value)}
        />
        <button type="submit" disabled={upload.busy || file === null}>
          Upload image
        </button>
      </form>
      <Alert message={upload.error} />
      <Status message={upload.status} />
    </section>
  );
}

export function ProductPage({ id }: { id: number | null }) {
  const [flash] = useState(flashMessage);
  const product = useLoad(
    () =>
      id === null
        ? Promise.resolve(null)
        : client.data(client.api.GET('/products/{id}', { params: { path: { id } } })),
    [id],
  );
  const reload = () => void product.reload();
  const data = product.data;
  const title = id === null ? 'New product' : data !== null ? data.name : 'Product';

  return (
    <Page title={title}>
      <p>
        <Link to="/products">Back to the product list</Link>
      </p>
      <Status message={flash} />
      <Alert message={product.error} />
      {id === null && <ProductForm product={null} onSaved={reload} />}
      {data !== null && (
        <>
          <ProductForm product={data} onSaved={reload} />
          <Images product={data} onChanged={reload} />
          <OptionsForm product={data} onSaved={reload} />
          <Variants product={data} onChanged={reload} />
        </>
      )}
    </Page>
  );
}
