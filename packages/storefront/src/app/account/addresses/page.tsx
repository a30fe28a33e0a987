import type { Metadata } from 'next';
import { AddAddressForm, DeleteButton, SignInRequired } from '@/components/account-forms';
import { AccountNav } from '@/components/account-nav';
import { serverClient, unless } from '@/lib/api-server';
import { currentRegion } from '@/lib/region';

export const metadata: Metadata = { title: 'Addresses' };

export default async function AddressesPage() {
  const client = await serverClient();
  const addresses = await unless([401], client.page(client.api.GET('/me/addresses')));
  if (addresses === null) {
    return (
      <>
        <h1>Addresses</h1>
        <SignInRequired />
      </>
    );
  }
  const { region } = await currentRegion();
  return (
    <>
      <h1>Addresses</h1>
      <AccountNav />
      {addresses.data.length === 0 ? (
        <p>No saved addresses.</p>
      ) : (
        <ul className="cards">
          {addresses.data.map((address) => (
            <li key={address.id}>
              <address>
                {[
                  address.name,
                  address.line1,
                  address.line2,
                  `${address.postal_code} ${address.city}`.trim(),
                  address.region,
                  address.country,
                ]
                  .filter((line) => line !== '')
                  .map((line) => (
                    <span key={line}>{line}</span>
                  ))}
              </address>
              {address.is_default && <p>Default address</p>}
              <DeleteButton
                label={`Delete ${address.name}, ${address.line1}`}
                path="/me/addresses/{id}"
                id={String(address.id)}
              />
            </li>
          ))}
        </ul>
      )}
      <AddAddressForm countries={region?.countries ?? []} />
    </>
  );
}
