// A small storefront written on the SDK (@commerce/sdk, typed from the served OpenAPI document). It is compiled
// with `tsc --strict --noEmit` by test/contract.e2e-spec.ts: if a change to the API breaks the types a front end
// relies on, this stops compiling and the test fails.
import { createCommerceClient, type components, type paths } from '@commerce/sdk';

type FieldError = components['schemas']['FieldErrorDto'];
type Product = components['schemas']['ProductResponseDto'];

let api = createCommerceClient({ baseUrl: 'http://localhost:3000/api/v1' }).api;

/** Points the client at a running service (the contract test runs these functions against one). */
export function useService(baseUrl: string): void {
  api = createCommerceClient({ baseUrl: `${baseUrl}/api/v1` }).api;
}

export async function login(username: string, password: string): Promise<string> {
  const { data, error } = await api.POST('/login', { body: { username, password } });
  if (error !== undefined) throw new Error(error.data.details);
  const token: string = data.data.token;
  const role: string = data.data.user.role;
  return role === '' ? '' : token;
}

export async function listProducts(
  token: string,
  page: number,
): Promise<{ items: Product[]; pages: number }> {
  const { data, error } = await api.GET('/products', {
    params: { query: { page, page_size: 20, sort: '-price' } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error !== undefined) throw new Error(error.data.details);
  const pages: number = data.meta.total_page;
  const firstId: number | undefined = data.data[0]?.id;
  const created: string | undefined = data.data[0]?.created_at;
  return firstId === undefined && created === undefined ? { items: [], pages } : { items: data.data, pages };
}

type Category = components['schemas']['CategoryResponseDto'];

/** A category menu: the top-level categories, then a category page's products with those of its subcategories. */
export async function categoryPage(
  token: string,
  slug: string,
): Promise<{ menu: Category[]; products: Product[] } | FieldError[]> {
  const headers = { Authorization: `Bearer ${token}` };
  const menu = await api.GET('/categories', { params: { query: { parent_id: 0 } }, headers });
  if (menu.error !== undefined) throw new Error(menu.error.data.details);
  const found = await api.GET('/categories', { params: { query: { slug } }, headers });
  if (found.error !== undefined) throw new Error(found.error.data.details);
  const category: Category | undefined = found.data.data[0];
  if (category === undefined) return { menu: menu.data.data, products: [] };
  const parent: number | null = category.parent_id;
  const { data, error, response } = await api.GET('/products', {
    params: { query: { category_id: category.id, include_descendants: true } },
    headers,
  });
  if (error !== undefined) {
    if (response.status === 400 && 'errors' in error.data) return error.data.errors;
    throw new Error(error.data.details);
  }
  return { menu: parent === null ? menu.data.data : [], products: data.data };
}

/** Places an order; a 400 comes back as the list of field errors, for a form to show beside each field. */
export async function placeOrder(
  token: string,
  productId: number,
  quantity: number,
): Promise<{ orderNumber: string; replayed: boolean } | FieldError[]> {
  const { data, error, response } = await api.POST('/orders', {
    body: {
      items: [{ product_id: productId, quantity }],
      shipping_address: '1 Main St',
      payment_method: 'credit_card',
    },
    headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': 'checkout-1' },
  });
  if (error !== undefined) {
    if (response.status === 400 && 'errors' in error.data) return error.data.errors;
    throw new Error(error.data.details);
  }
  const total: number = data.data.total_amount;
  return {
    orderNumber: `${data.data.order_number} ${total}`,
    replayed: response.headers.has('Idempotent-Replayed'),
  };
}

/** A back office's quick add: only the required fields (no description, no stock). */
export async function addProduct(
  token: string,
  name: string,
  price: number,
  categoryId: number,
): Promise<number> {
  const { data, error } = await api.POST('/products', {
    body: { name, price, category_id: categoryId },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error !== undefined) throw new Error(error.data.details);
  return data.data.id;
}

/** A partial update: the price alone. */
export async function changePrice(token: string, id: number, price: number): Promise<number> {
  const { data, error } = await api.PUT('/products/{id}', {
    params: { path: { id } },
    body: { price },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error !== undefined) throw new Error(error.data.details);
  return data.data.price;
}

type Deleted = paths['/products/{id}']['delete']['responses'][200]['content']['application/json'];
/** A DELETE answers `data: null` (exactly null in the types: this line stops compiling otherwise). */
const deletedDataIsNull: [Deleted['data']] extends [null]
  ? [null] extends [Deleted['data']]
    ? true
    : false
  : false = true;

export async function deleteProduct(token: string, id: number): Promise<boolean> {
  const { data, error } = await api.DELETE('/products/{id}', {
    params: { path: { id } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error !== undefined) throw new Error(error.data.details);
  return data.code === 200 && deletedDataIsNull;
}

export async function health(): Promise<'up'> {
  const { data, error } = await api.GET('/health');
  if (error !== undefined) throw new Error(error.data.details);
  return data.data.database;
}

/** The "forgot password" form: the same answer for any address; the e-mail's link leads to `resetPassword`. */
export async function forgotPassword(email: string): Promise<boolean> {
  const { data, error } = await api.POST('/auth/password-reset', { body: { email } });
  if (error !== undefined) throw new Error(error.data.details);
  return data.code === 200;
}

/** The page of the reset link: a 400 names `token` (unknown, used, expired) or `password` (registration's rules). */
export async function resetPassword(token: string, password: string): Promise<FieldError[]> {
  const { error, response } = await api.POST('/auth/password-reset/confirm', {
    body: { token, password },
  });
  if (error === undefined) return [];
  if (response.status === 400 && 'errors' in error.data) return error.data.errors;
  throw new Error(error.data.details);
}

/** The page of the verification link, then whether the account shows its address as verified. */
export async function verifyEmail(token: string, bearer: string, userId: number): Promise<boolean> {
  await api.POST('/auth/verify-email', { body: { token } });
  await api.POST('/auth/verify-email/resend', { body: { email: 'jane@example.com' } });
  const { data, error } = await api.GET('/users/{id}', {
    params: { path: { id: userId } },
    headers: { Authorization: `Bearer ${bearer}` },
  });
  if (error !== undefined) throw new Error(error.data.details);
  const verified: boolean = data.data.email_verified;
  return verified;
}

type Delivery = components['schemas']['WebhookDeliveryResponseDto'];

/** An integration's set-up: registers its endpoint, keeps the secret, and lists the failed deliveries to retry. */
export async function registerWebhook(token: string, url: string): Promise<{ id: number; secret: string }> {
  const { data, error } = await api.POST('/admin/webhooks', {
    body: { url, events: ['order.created', 'order.paid'], description: 'ERP' },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error !== undefined) throw new Error(error.data.details);
  return { id: data.data.id, secret: data.data.secret };
}

export async function retryFailedDeliveries(token: string, webhookId: number): Promise<Delivery[]> {
  const auth = { Authorization: `Bearer ${token}` };
  const { data, error } = await api.GET('/admin/webhooks/{id}/deliveries', {
    params: { path: { id: webhookId }, query: { page: 1, page_size: 100 } },
    headers: auth,
  });
  if (error !== undefined) throw new Error(error.data.details);
  const retried: Delivery[] = [];
  for (const delivery of data.data.filter((item) => item.status === 'failed')) {
    const retry = await api.POST('/admin/webhooks/{id}/deliveries/{deliveryId}/retry', {
      params: { path: { id: webhookId, deliveryId: delivery.id } },
      headers: auth,
    });
    if (retry.error !== undefined) throw new Error(retry.error.data.details);
    const status: 'pending' | 'succeeded' | 'failed' = retry.data.data.status;
    if (status === 'pending') retried.push(retry.data.data);
  }
  return retried;
}

type Address = components['schemas']['AddressResponseDto'];
type ShippingOption = components['schemas']['ShippingOptionResponseDto'];

/** A checkout's address step: saves an address as the default and lists the shipping options for its country. */
export async function saveAddressAndShipping(
  token: string,
  address: components['schemas']['CreateAddressDto'],
): Promise<{ address: Address; options: ShippingOption[] } | FieldError[]> {
  const headers = { Authorization: `Bearer ${token}` };
  const saved = await api.POST('/me/addresses', { body: { ...address, is_default: true }, headers });
  if (saved.error !== undefined) {
    if (saved.response.status === 400 && 'errors' in saved.error.data) return saved.error.data.errors;
    throw new Error(saved.error.data.details);
  }
  const country: string = saved.data.data.country;
  const { data, error } = await api.GET('/shipping-options', {
    params: { query: { country, page_size: 100 } },
    headers,
  });
  if (error !== undefined) throw new Error(error.data.details);
  const price: number | undefined = data.data[0]?.price;
  const countries: string[] | undefined = data.data[0]?.countries;
  return price === undefined && countries === undefined
    ? { address: saved.data.data, options: [] }
    : { address: saved.data.data, options: data.data };
}

/** A product page by its slug (the path segment takes an id or a slug), with its gallery in order. */
export async function productPage(slug: string): Promise<{ title: string; gallery: string[] }> {
  const { data, error } = await api.GET('/products/{id}', { params: { path: { id: slug } } });
  if (error !== undefined) throw new Error(error.data.details);
  const first: string = data.data.image;
  const gallery: string[] = data.data.images.map((image) => `${image.position}:${image.url}:${image.alt}`);
  return { title: `${data.data.name} (${data.data.slug})`, gallery: first === '' ? [] : gallery };
}

/** The slug look-up as a list: one product or none. */
export async function findBySlug(slug: string): Promise<Product | undefined> {
  const { data, error } = await api.GET('/products', { params: { query: { slug } } });
  if (error !== undefined) throw new Error(error.data.details);
  return data.data[0];
}

/** A cart page's products in one call, in the cart's order (unknown ids simply absent). */
export async function cartProducts(token: string, ids: number[]): Promise<Product[]> {
  const { data, error } = await api.GET('/products', {
    params: { query: { ids: ids.join(',') } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error !== undefined) throw new Error(error.data.details);
  return data.data;
}

/** Sets a product's images from uploaded files; a refused one comes back as field errors (images.N.url). */
export async function setImages(
  token: string,
  id: number,
  images: Array<{ url: string; alt?: string }>,
): Promise<Product['images'] | FieldError[]> {
  const { data, error, response } = await api.PUT('/products/{id}', {
    params: { path: { id } },
    body: { images },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error !== undefined) {
    if (response.status === 400 && 'errors' in error.data) return error.data.errors;
    throw new Error(error.data.details);
  }
  return data.data.images;
}

/** An admin adds a variant; its option values are a name-to-value map, its SKU and title strings. */
export async function addVariant(token: string, productId: number): Promise<{ id: number; title: string }> {
  const { data, error } = await api.POST('/products/{id}/variants', {
    params: { path: { id: productId } },
    body: { sku: 'TEE-RED-M', options: { Size: 'M', Colour: 'Red' }, price: 19.99, stock: 10 },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error !== undefined) throw new Error(error.data.details);
  const size: string | undefined = data.data.options.Size;
  return { id: data.data.id, title: `${data.data.title} ${size ?? ''}` };
}

/** An order by variant; each item of its detail carries the variant's SKU and title, null for simple products. */
export async function orderVariant(token: string, variantId: number): Promise<Array<string | null>> {
  const placed = await api.POST('/orders', {
    body: {
      items: [{ variant_id: variantId, quantity: 1 }],
      shipping_address: '1 Main St',
      payment_method: 'credit_card',
    },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (placed.error !== undefined) throw new Error(placed.error.data.details);
  const { data, error } = await api.GET('/orders/{id}', {
    params: { path: { id: placed.data.data.id } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error !== undefined) throw new Error(error.data.details);
  return data.data.items.map((item) =>
    item.variant_id === null ? null : `${item.sku} ${item.variant_title}`,
  );
}
