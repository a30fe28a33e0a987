import type { Metadata } from 'next';
import { CheckoutForm } from '@/components/checkout-form';
import { serverClient } from '@/lib/api-server';
import { currentUser } from '@/lib/account';
import { currentRegion } from '@/lib/region';

export const metadata: Metadata = { title: 'Checkout' };

export default async function CheckoutPage() {
  const client = await serverClient();
  const [user, methods, { region }] = await Promise.all([
    currentUser(),
    client.data(client.api.GET('/payment-methods')),
    currentRegion(),
  ]);
  const addresses = user === null ? [] : (await client.page(client.api.GET('/me/addresses'))).data;
  return (
    <>
      <h1>Checkout</h1>
      <CheckoutForm
        customerEmail={user?.email ?? null}
        addresses={addresses}
        methods={methods}
        countries={region?.countries ?? []}
      />
    </>
  );
}
