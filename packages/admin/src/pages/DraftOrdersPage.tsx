import { useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client, readAll } from '../client';
import { formatDateTime, formatMoney } from '../format';
import { Link } from '../router';
import {
  Alert,
  CheckboxField,
  CountField,
  DataTable,
  Page,
  RowButton,
  SelectField,
  Status,
  TextField,
  useAction,
  useLoad,
} from '../ui';

type Draft = Schemas['DraftCartResponseDto'];
type Summary = Schemas['DraftCartSummaryDto'];
type Order = Schemas['OrderDetailResponseDto'];
type Customer = { userId: string; email: string; regionId: string };
type Address = { name: string; line1: string; city: string; postalCode: string; country: string };

const NO_CUSTOMER: Customer = { userId: '', email: '', regionId: '' };
const NO_ADDRESS: Address = { name: '', line1: '', city: '', postalCode: '', country: '' };

function loadDrafts(): Promise<Summary[]> {
  return readAll((page) =>
    client.page(client.api.GET('/admin/carts', { params: { query: { page, page_size: 100 } } })),
  );
}

function customerOf(draft: Pick<Summary, 'user_id' | 'email'>): string {
  return draft.user_id === null ? `${draft.email ?? ''} (guest)` : `User ${draft.user_id}`;
}

/**
 * Draft orders: staff build an order for a customer (taken over the phone) and send it for payment. The list of
 * open drafts, a form to start one, and the open draft with its lines, address, shipping, discount codes and the
 * button that places the order.
 */
export function DraftOrdersPage() {
  const drafts = useLoad(loadDrafts, []);
  const regions = useLoad(
    () =>
      readAll((page) =>
        client.page(client.api.GET('/regions', { params: { query: { page, page_size: 100 } } })),
      ),
    [],
  );
  const [customer, setCustomer] = useState<Customer>(NO_CUSTOMER);
  const [openId, setOpenId] = useState<string | null>(null);
  const [placed, setPlaced] = useState<Order | null>(null);
  const create = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      ...(customer.userId.trim() === '' ? {} : { user_id: Number(customer.userId) }),
      ...(customer.email.trim() === '' ? {} : { email: customer.email.trim() }),
      ...(customer.regionId === '' ? {} : { region_id: Number(customer.regionId) }),
    };
    void create
      .run(async () => {
        const draft = await client.data(client.api.POST('/admin/carts', { body }));
        setOpenId(draft.id);
        setPlaced(null);
      }, 'Draft started.')
      .then((ok) => {
        if (!ok) return;
        setCustomer(NO_CUSTOMER);
        void drafts.reload();
      });
  };

  return (
    <Page title="Draft orders">
      <p className="hint">
        An order built for a customer, for instance taken over the phone. Placing it e-mails the customer a
        link to pay it, or marks it paid when the payment was taken already.
      </p>
      <Alert message={drafts.error} />
      {placed !== null && (
        <p role="status" className="status">
          Order {placed.order_number} placed (
          {placed.payment_status === 'paid' ? 'paid' : 'payment link sent'}
          ). <Link to={`/orders/${placed.id}`}>Open order {placed.order_number}</Link>
        </p>
      )}
      {drafts.data !== null && drafts.data.length > 0 && (
        <DataTable caption="Open drafts" columns={['Customer', ['Lines', 'number'], 'Changed', 'Actions']}>
          {drafts.data.map((draft) => (
            <tr key={draft.id}>
              <th scope="row">{customerOf(draft)}</th>
              <td className="number">{draft.line_count}</td>
              <td>{formatDateTime(draft.updated_at)}</td>
              <td className="actions">
                <RowButton
                  label="Open"
                  of={`the draft for ${customerOf(draft)}`}
                  onClick={() => {
                    setOpenId(draft.id);
                    setPlaced(null);
                  }}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {drafts.data !== null && drafts.data.length === 0 && <p>No open drafts.</p>}

      {openId !== null && (
        <DraftEditor
          key={openId}
          id={openId}
          onChanged={() => void drafts.reload()}
          onPlaced={(order) => {
            setPlaced(order);
            setOpenId(null);
            void drafts.reload();
          }}
          onDeleted={() => {
            setOpenId(null);
            void drafts.reload();
          }}
        />
      )}

      <form className="stacked" onSubmit={submit} noValidate aria-labelledby="draft-form-heading">
        <h2 id="draft-form-heading">New draft order</h2>
        <Alert message={create.error} />
        <Status message={create.status} />
        <TextField
          label="Customer's e-mail (guest order)"
          type="email"
          value={customer.email}
          error={create.fields.email}
          hint="Or the user id of a registered customer, not both"
          onChange={(event) => setCustomer({ ...customer, email: event.target.value })}
        />
        <TextField
          label="Customer's user id"
          type="number"
          inputMode="numeric"
          min="1"
          value={customer.userId}
          error={create.fields.user_id}
          onChange={(event) => setCustomer({ ...customer, userId: event.target.value })}
        />
        <SelectField
          label="Region"
          empty="The default region"
          options={(regions.data ?? []).map((region) => ({
            value: region.id,
            label: `${region.name} (${region.currency_code.toUpperCase()})`,
          }))}
          value={customer.regionId}
          error={create.fields.region_id}
          onChange={(event) => setCustomer({ ...customer, regionId: event.target.value })}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={create.busy}>
            Start draft
          </button>
        </div>
      </form>
    </Page>
  );
}

/** One draft: what it holds and priced, and the forms that change and place it. */
function DraftEditor({
  id,
  onChanged,
  onPlaced,
  onDeleted,
}: {
  id: string;
  onChanged: () => void;
  onPlaced: (order: Order) => void;
  onDeleted: () => void;
}) {
  const draft = useLoad(
    () => client.data(client.api.GET('/admin/carts/{id}', { params: { path: { id } } })),
    [id],
  );
  const products = useLoad(
    () =>
      client
        .page(
          client.api.GET('/products', {
            params: { query: { is_active: true, sort: 'name', page_size: 100 } },
          }),
        )
        .then((page) => page.data),
    [],
  );
  const options = useLoad(
    () =>
      draft.data?.shipping_address == null
        ? Promise.resolve([])
        : client
            .page(client.api.GET('/carts/{id}/shipping-options', { params: { path: { id } } }))
            .then((page) => page.data),
    [id, draft.data?.shipping_address?.country],
  );
  const [line, setLine] = useState({ productId: '', quantity: '1' });
  const [address, setAddress] = useState<Address>(NO_ADDRESS);
  const [code, setCode] = useState('');
  const [markPaid, setMarkPaid] = useState(false);
  const change = useAction();
  const path = { params: { path: { id } } };

  /** Runs a change of the draft; its answer is the draft as changed. */
  const apply = (call: () => Promise<Schemas['CartResponseDto']>, done: string) =>
    change.run(async () => {
      const changed = await call();
      draft.setData((current) => (current === null ? current : { ...current, ...changed }));
      onChanged();
    }, done);

  const addLine = (event: FormEvent) => {
    event.preventDefault();
    void apply(
      () =>
        client.data(
          client.api.POST('/carts/{id}/items', {
            ...path,
            body: { product_id: Number(line.productId), quantity: Number(line.quantity) },
          }),
        ),
      'Product added.',
    ).then((ok) => ok && setLine({ productId: '', quantity: '1' }));
  };

  const saveAddress = (event: FormEvent) => {
    event.preventDefault();
    const shipping_address = {
      name: address.name,
      line1: address.line1,
      city: address.city,
      postal_code: address.postalCode,
      country: address.country.toUpperCase(),
    };
    void apply(
      () => client.data(client.api.PUT('/carts/{id}', { ...path, body: { shipping_address } })),
      'Address saved.',
    );
  };

  const applyCode = (event: FormEvent) => {
    event.preventDefault();
    void apply(
      () => client.data(client.api.POST('/carts/{id}/discount-codes', { ...path, body: { code } })),
      `Code ${code} applied.`,
    ).then((ok) => ok && setCode(''));
  };

  const place = () => {
    void change.run(async () => {
      const order = await client.data(
        client.api.POST('/admin/carts/{id}/complete', { ...path, body: { mark_paid: markPaid } }),
      );
      onPlaced(order);
    });
  };

  const discard = () => {
    if (!window.confirm('Delete this draft order? Its lines, codes and gift cards go with it.')) return;
    void change.run(async () => {
      await client.data(client.api.DELETE('/admin/carts/{id}', path));
      onDeleted();
    });
  };

  const cart: Draft | null = draft.data;
  const money = (amount: number) => formatMoney(amount, cart?.currency_code ?? null);
  return (
    <section aria-labelledby="draft-heading" className="stacked">
      <h2 id="draft-heading">Draft for {cart === null ? '…' : customerOf(cart)}</h2>
      <Alert message={draft.error ?? change.error} />
      <Status message={change.status} />
      {cart !== null && (
        <>
          <DataTable
            caption="Lines"
            columns={['Product', ['Quantity', 'number'], ['Price', 'number'], ['Total', 'number'], 'Actions']}
            footer={
              <>
                <tr>
                  <th scope="row" colSpan={3}>
                    Subtotal
                  </th>
                  <td className="number">{money(cart.subtotal)}</td>
                  <td />
                </tr>
                {cart.discount_total > 0 && (
                  <tr>
                    <th scope="row" colSpan={3}>
                      Discount
                    </th>
                    <td className="number">−{money(cart.discount_total)}</td>
                    <td />
                  </tr>
                )}
                <tr>
                  <th scope="row" colSpan={3}>
                    Shipping
                  </th>
                  <td className="number">{money(cart.shipping_total)}</td>
                  <td />
                </tr>
                <tr>
                  <th scope="row" colSpan={3}>
                    Tax
                  </th>
                  <td className="number">{money(cart.tax_total)}</td>
                  <td />
                </tr>
                <tr>
                  <th scope="row" colSpan={3}>
                    Total
                  </th>
                  <td className="number">{money(cart.total)}</td>
                  <td />
                </tr>
              </>
            }
          >
            {cart.items.map((item) => (
              <tr key={item.id}>
                <th scope="row">{item.product_name ?? `Product ${item.product_id}`}</th>
                <td className="number">{item.quantity}</td>
                <td className="number">{item.price === null ? '—' : money(item.price)}</td>
                <td className="number">{money(item.total)}</td>
                <td className="actions">
                  <RowButton
                    label="Remove"
                    of={item.product_name ?? `product ${item.product_id}`}
                    danger
                    disabled={change.busy}
                    onClick={() =>
                      void apply(
                        () =>
                          client.data(
                            client.api.DELETE('/carts/{id}/items/{itemId}', {
                              params: { path: { id, itemId: item.id } },
                            }),
                          ),
                        'Line removed.',
                      )
                    }
                  />
                </td>
              </tr>
            ))}
          </DataTable>

          <form onSubmit={addLine} noValidate aria-labelledby="draft-line-heading" className="stacked">
            <h3 id="draft-line-heading">Add a product</h3>
            <SelectField
              label="Product"
              empty="Choose a product"
              options={(products.data ?? []).map((product) => ({ value: product.id, label: product.name }))}
              value={line.productId}
              error={change.fields.product_id ?? change.fields.quantity}
              onChange={(event) => setLine({ ...line, productId: event.target.value })}
            />
            <CountField
              label="Quantity"
              min="1"
              value={line.quantity}
              onChange={(event) => setLine({ ...line, quantity: event.target.value })}
            />
            <div className="actions">
              <button type="submit" disabled={change.busy}>
                Add product
              </button>
            </div>
          </form>

          <form onSubmit={saveAddress} noValidate aria-labelledby="draft-address-heading" className="stacked">
            <h3 id="draft-address-heading">Shipping address</h3>
            {cart.shipping_address !== null && (
              <p>
                {cart.shipping_address.name}, {cart.shipping_address.line1},{' '}
                {cart.shipping_address.postal_code} {cart.shipping_address.city},{' '}
                {cart.shipping_address.country}
              </p>
            )}
            <TextField
              label="Name"
              value={address.name}
              error={change.fields['shipping_address.name']}
              onChange={(event) => setAddress({ ...address, name: event.target.value })}
            />
            <TextField
              label="Street"
              value={address.line1}
              error={change.fields['shipping_address.line1']}
              onChange={(event) => setAddress({ ...address, line1: event.target.value })}
            />
            <TextField
              label="City"
              value={address.city}
              error={change.fields['shipping_address.city']}
              onChange={(event) => setAddress({ ...address, city: event.target.value })}
            />
            <TextField
              label="Postal code"
              value={address.postalCode}
              error={change.fields['shipping_address.postal_code']}
              onChange={(event) => setAddress({ ...address, postalCode: event.target.value })}
            />
            <TextField
              label="Country"
              maxLength={2}
              hint="Two-letter code, e.g. GB"
              value={address.country}
              error={change.fields['shipping_address.country']}
              onChange={(event) => setAddress({ ...address, country: event.target.value })}
            />
            <div className="actions">
              <button type="submit" disabled={change.busy}>
                Save address
              </button>
            </div>
          </form>

          {cart.shipping_address !== null && (
            <SelectField
              label="Shipping option"
              empty="No shipping option"
              options={(options.data ?? []).map((option) => ({ value: option.id, label: option.name }))}
              value={cart.shipping_option?.id ?? ''}
              error={change.fields.shipping_option_id}
              disabled={change.busy}
              onChange={(event) =>
                void apply(
                  () =>
                    client.data(
                      client.api.PUT('/carts/{id}', {
                        ...path,
                        body: {
                          shipping_option_id: event.target.value === '' ? null : Number(event.target.value),
                        },
                      }),
                    ),
                  'Shipping option saved.',
                )
              }
            />
          )}

          <form onSubmit={applyCode} noValidate aria-labelledby="draft-code-heading" className="stacked">
            <h3 id="draft-code-heading">Discount code</h3>
            {cart.discounts.length > 0 && (
              <p>
                Discounts:{' '}
                {cart.discounts.map((discount) => discount.code ?? discount.description).join(', ')}
              </p>
            )}
            <TextField
              label="Code"
              value={code}
              error={change.fields.code}
              onChange={(event) => setCode(event.target.value)}
            />
            <div className="actions">
              <button type="submit" disabled={change.busy || code.trim() === ''}>
                Apply code
              </button>
            </div>
          </form>

          <div className="stacked">
            <h3>Place the order</h3>
            <CheckboxField
              label="Mark paid (the payment was taken already: no payment link is sent)"
              checked={markPaid}
              onChange={(event) => setMarkPaid(event.target.checked)}
            />
            <div className="actions">
              <button type="button" className="primary" disabled={change.busy} onClick={place}>
                Place order
              </button>
              <button type="button" className="danger" disabled={change.busy} onClick={discard}>
                Delete draft
              </button>
            </div>
          </div>
        </>
      )}
    </section>
  );
}
