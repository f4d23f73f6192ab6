// The credit packages on sale (spec: Credit package).

export interface CreditPackage {
  readonly id: string;
  readonly credits: number;
  readonly priceUsd: string;
}

export const creditPackages: readonly CreditPackage[] = Object.freeze([
  { id: 'credits_500', credits: 500, priceUsd: '5.00' },
  { id: 'credits_2000', credits: 2000, priceUsd: '15.00' },
  { id: 'credits_5000', credits: 5000, priceUsd: '35.00' },
  { id: 'credits_15000', credits: 15000, priceUsd: '100.00' },
]);

export function findPackage(id: string): CreditPackage | undefined {
  return creditPackages.find((p) => p.id === id);
}

/** The package price in cents, for payment providers. */
export function priceCents(pkg: CreditPackage): number {
  return Math.round(Number(pkg.priceUsd) * 100);
}
