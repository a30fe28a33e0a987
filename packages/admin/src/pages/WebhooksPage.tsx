import { useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client, readAll, succeed } from '../client';
import { formatDateTime, humanize } from '../format';
import {
  ActiveBadge,
  Alert,
  CheckboxField,
  DataTable,
  Page,
  Pagination,
  RowButton,
  Status,
  TextField,
  useAction,
  useLoad,
} from '../ui';

type Webhook = Schemas['WebhookResponseDto'];
type EventName = Schemas['CreateWebhookDto']['events'][number];

/** What each event tells (docs/api.md, Events); typed against the API's list, so a new event fails to compile here. */
const EVENTS: Record<Exclude<EventName, '*'>, string> = {
  'order.created': 'an order is placed',
  'order.updated': 'its status or payment status changes',
  'order.paid': 'its payment is received',
  'order.cancelled': 'it is cancelled',
  'order.refunded': 'it is refunded, in part or in full',
  'order.email_sent': 'an e-mail about it is sent',
  'order.fulfilled': 'some of its units are shipped (one per fulfilment)',
  'order.delivered': 'a fulfilment of it is delivered',
  'return.requested': 'a return of its units is requested',
  'return.received': 'a return is received (and refunded)',
  'return.rejected': 'a return is rejected',
  'product.created': 'a product is created',
  'product.updated': 'it or one of its variants is changed',
  'product.deleted': 'it is deleted',
  'product.back_in_stock': 'its stock goes from 0 to more',
  'user.created': 'an account is created',
};

function Deliveries({ webhook }: { webhook: Webhook }) {
  const [page, setPage] = useState(1);
  const deliveries = useLoad(
    () =>
      client.page(
        client.api.GET('/admin/webhooks/{id}/deliveries', {
          params: { path: { id: webhook.id }, query: { page, page_size: 20 } },
        }),
      ),
    [webhook.id, page],
  );
  const retry = useAction();

  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries to {webhook.url}</h2>
      <div className="actions">
        <button type="button" onClick={() => void deliveries.reload()}>
          Refresh deliveries
        </button>
      </div>
      <Alert message={deliveries.error ?? retry.error} />
      <Status message={retry.status} />
      {deliveries.data !== null &&
        (deliveries.data.data.length === 0 ? (
          <p>No deliveries yet.</p>
        ) : (
          <>
            <DataTable
              caption="Deliveries, newest first"
              columns={[
                'Event',
                'Status',
                ['Attempts', 'number'],
                'Last answer',
                'Next attempt',
                'Created',
                'Actions',
              ]}
            >
              {deliveries.data.data.map((delivery) => (
                <tr key={delivery.id}>
                  <th scope="row">
                    {delivery.event_type}
                    <span className="sub"> #{delivery.id}</span>
                  </th>
                  <td>
                    <span className={`badge badge-${delivery.status}`}>{humanize(delivery.status)}</span>
                  </td>
                  <td className="number">{delivery.attempts}</td>
                  <td>
                    {delivery.last_status_code !== null && `HTTP ${delivery.last_status_code}`}
                    {delivery.last_error !== null && <span className="sub"> {delivery.last_error}</span>}
                  </td>
                  <td>{formatDateTime(delivery.next_attempt_at)}</td>
                  <td>{formatDateTime(delivery.created_at)}</td>
                  <td>
                    <RowButton
                      label="Retry"
                      of={`delivery #${delivery.id}`}
                      disabled={retry.busy}
                      onClick={() =>
                        void retry
                          .run(
                            () =>
                              client.data(
                                client.api.POST('/admin/webhooks/{id}/deliveries/{deliveryId}/retry', {
                                  params: { path: { id: webhook.id, deliveryId: delivery.id } },
                                }),
                              ),
                            `Delivery #${delivery.id} queued again.`,
                          )
                          .then((ok) => {
                            if (ok) void deliveries.reload();
                          })
                      }
                    />
                  </td>
                </tr>
              ))}
            </DataTable>
            <Pagination meta={deliveries.data.meta} onPage={setPage} />
          </>
        ))}
    </section>
  );
}

export function WebhooksPage() {
  const webhooks = useLoad(
    () =>
      readAll((page) =>
        client.page(client.api.GET('/admin/webhooks', { params: { query: { page, page_size: 100 } } })),
      ),
    [],
  );
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventName[]>([]);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [shown, setShown] = useState<Webhook | null>(null);
  const create = useAction();
  const remove = useAction();

  const toggleEvent = (event: EventName, on: boolean) =>
    setEvents((current) => (on ? [...current, event] : current.filter((name) => name !== event)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSecret(null);
    void create
      .run(async () => {
        const made = await client.data(
          client.api.POST('/admin/webhooks', {
            body: { url, events, ...(description.trim() !== '' && { description: description.trim() }) },
          }),
        );
        setSecret({ url: made.url, secret: made.secret });
      }, 'Webhook created.')
      .then((ok) => {
        if (!ok) return;
        setUrl('');
        setDescription('');
        setEvents([]);
        void webhooks.reload();
      });
  };

  const del = (webhook: Webhook) => {
    if (!window.confirm(`Delete the webhook to ${webhook.url} and its deliveries?`)) return;
    void remove
      .run(
        () => succeed(client.api.DELETE('/admin/webhooks/{id}', { params: { path: { id: webhook.id } } })),
        'Webhook deleted.',
      )
      .then((ok) => {
        if (!ok) return;
        if (shown?.id === webhook.id) setShown(null);
        void webhooks.reload();
      });
  };

  const fieldError = (name: string) =>
    create.fields[name] ?? Object.entries(create.fields).find(([field]) => field.startsWith(`${name}.`))?.[1];

  return (
    <Page title="Webhooks">
      <Alert message={webhooks.error ?? remove.error} />
      <Status message={remove.status} />
      {webhooks.data !== null &&
        (webhooks.data.length === 0 ? (
          <p>No webhooks yet.</p>
        ) : (
          <DataTable
            caption="Webhooks"
            columns={['URL', 'Events', 'Description', 'State', 'Created', 'Actions']}
          >
            {webhooks.data.map((webhook) => (
              <tr key={webhook.id}>
                <th scope="row">{webhook.url}</th>
                <td>{webhook.events.includes('*') ? 'All events' : webhook.events.join(', ')}</td>
                <td>{webhook.description}</td>
                <td>
                  <ActiveBadge active={webhook.active} />
                </td>
                <td>{formatDateTime(webhook.created_at)}</td>
                <td className="actions">
                  <RowButton
                    label="Deliveries"
                    of={`to ${webhook.url}`}
                    aria-pressed={shown?.id === webhook.id}
                    onClick={() => setShown(webhook)}
                  />
                  <RowButton
                    label="Delete"
                    of={`webhook to ${webhook.url}`}
                    danger
                    disabled={remove.busy}
                    onClick={() => del(webhook)}
                  />
                </td>
              </tr>
            ))}
          </DataTable>
        ))}

      {shown !== null && <Deliveries key={shown.id} webhook={shown} />}

      <form className="stacked" onSubmit={submit} noValidate aria-labelledby="new-webhook">
        <h2 id="new-webhook">New webhook</h2>
        <Alert message={create.error} />
        <TextField
          label="URL"
          type="url"
          required
          placeholder="https://example.com/hooks/commerce"
          value={url}
          error={create.fields.url}
          onChange={(event) => setUrl(event.target.value)}
        />
        <fieldset aria-describedby={fieldError('events') !== undefined ? 'events-error' : undefined}>
          <legend>Events</legend>
          <CheckboxField
            label="All events, including those added later (*)"
            checked={events.includes('*')}
            onChange={(event) => toggleEvent('*', event.target.checked)}
          />
          {(Object.entries(EVENTS) as [EventName, string][]).map(([name, meaning]) => (
            <CheckboxField
              key={name}
              label={`${name}: ${meaning}`}
              checked={events.includes(name)}
              onChange={(event) => toggleEvent(name, event.target.checked)}
            />
          ))}
          {fieldError('events') !== undefined && (
            <span id="events-error" className="field-error">
              {fieldError('events')}
            </span>
          )}
        </fieldset>
        <TextField
          label="Description"
          maxLength={255}
          value={description}
          error={create.fields.description}
          onChange={(event) => setDescription(event.target.value)}
        />
        <button type="submit" className="primary" disabled={create.busy}>
          Create webhook
        </button>
        <Status message={create.status} />
      </form>
      {secret !== null && (
        <div className="notice" role="region" aria-labelledby="secret-heading">
          <h2 id="secret-heading">Signing secret</h2>
          <p>
            The secret of the webhook to {secret.url} is shown this once. Store it where the receiver can
            verify the signatures:
          </p>
          <p>
            <code>{secret.secret}</code>
          </p>
          <button type="button" onClick={() => setSecret(null)}>
            I have stored the secret
          </button>
        </div>
      )}
    </Page>
  );
}
