/**
 * Instance types per cloud provider and region, for the `/{provider}/instanceType/{region}`
 * listings (seed 4.2). Real names, vCPU counts and memory of each provider's general-purpose,
 * compute- and memory-optimised families; availability differs by region as it does in reality
 * (e.g. no ARM on GCP in southamerica-east1, no GPU nodes in small regions).
 */
export interface InstanceType {
  type: string;
  name: string;
  cpu: number;
  ram_in_gb: number;
  bandwidth_in_gbps: string;
  bandwidth_guarantee: string;
  architecture: string;
  gpu_info?: { count: number; name?: string; manufacturer?: string; memory_in_mib?: string };
  attributes: { instance_category: string; instance_generation: number; instance_family: string; instance_size: string; meets_resource_reqs: boolean };
}

function it(type: string, cpu: number, ram: number, bw: string, arch: 'AMD64' | 'ARM64', category: string, family: string, gen: number, size: string, gpu?: InstanceType['gpu_info']): InstanceType {
  return {
    type, name: type, cpu, ram_in_gb: ram, bandwidth_in_gbps: bw, bandwidth_guarantee: cpu >= 8 ? 'GUARANTEED' : 'BURSTABLE', architecture: arch,
    gpu_info: gpu ?? { count: 0 },
    attributes: { instance_category: category, instance_generation: gen, instance_family: family, instance_size: size, meets_resource_reqs: cpu >= 2 && ram >= 4 },
  };
}

const GCP_BASE = [
  it('e2-standard-2', 2, 8, '4', 'AMD64', 'general_purpose', 'e2', 2, 'standard-2'),
  it('e2-standard-4', 4, 16, '8', 'AMD64', 'general_purpose', 'e2', 2, 'standard-4'),
  it('e2-standard-8', 8, 32, '16', 'AMD64', 'general_purpose', 'e2', 2, 'standard-8'),
  it('n2-standard-4', 4, 16, '10', 'AMD64', 'general_purpose', 'n2', 2, 'standard-4'),
  it('n2-highmem-4', 4, 32, '10', 'AMD64', 'memory_optimized', 'n2', 2, 'highmem-4'),
  it('c3-standard-8', 8, 32, '23', 'AMD64', 'compute_optimized', 'c3', 3, 'standard-8'),
];
const GCP_ARM = [it('t2a-standard-4', 4, 16, '10', 'ARM64', 'general_purpose', 't2a', 2, 'standard-4')];
const GCP_GPU = [it('g2-standard-8', 8, 32, '16', 'AMD64', 'accelerated_computing', 'g2', 2, 'standard-8', { count: 1, name: 'L4', manufacturer: 'NVIDIA', memory_in_mib: '24576' })];

const AWS_BASE = [
  it('t3.medium', 2, 4, 'Up to 5', 'AMD64', 'general_purpose', 't3', 3, 'medium'),
  it('t3.large', 2, 8, 'Up to 5', 'AMD64', 'general_purpose', 't3', 3, 'large'),
  it('t3.xlarge', 4, 16, 'Up to 5', 'AMD64', 'general_purpose', 't3', 3, 'xlarge'),
  it('m6i.xlarge', 4, 16, 'Up to 12.5', 'AMD64', 'general_purpose', 'm6i', 6, 'xlarge'),
  it('c6i.2xlarge', 8, 16, 'Up to 12.5', 'AMD64', 'compute_optimized', 'c6i', 6, '2xlarge'),
  it('r6i.xlarge', 4, 32, 'Up to 12.5', 'AMD64', 'memory_optimized', 'r6i', 6, 'xlarge'),
  it('t4g.large', 2, 8, 'Up to 5', 'ARM64', 'general_purpose', 't4g', 4, 'large'),
  it('m7g.xlarge', 4, 16, 'Up to 12.5', 'ARM64', 'general_purpose', 'm7g', 7, 'xlarge'),
];
const AWS_GPU = [it('g5.xlarge', 4, 16, 'Up to 10', 'AMD64', 'accelerated_computing', 'g5', 5, 'xlarge', { count: 1, name: 'A10G', manufacturer: 'NVIDIA', memory_in_mib: '24576' })];

const SCW_BASE = [
  it('DEV1-M', 3, 4, '0.3', 'AMD64', 'development', 'DEV1', 1, 'M'),
  it('DEV1-L', 4, 8, '0.4', 'AMD64', 'development', 'DEV1', 1, 'L'),
  it('PRO2-S', 8, 32, '1.5', 'AMD64', 'general_purpose', 'PRO2', 2, 'S'),
  it('GP1-XS', 4, 16, '0.5', 'AMD64', 'general_purpose', 'GP1', 1, 'XS'),
];

export const INSTANCE_TYPES: Record<'GCP' | 'AWS' | 'SCW', Record<string, InstanceType[]>> = {
  GCP: {
    'europe-west1': [...GCP_BASE, ...GCP_ARM, ...GCP_GPU],
    'europe-west4': [...GCP_BASE, ...GCP_ARM, ...GCP_GPU],
    'europe-west9': GCP_BASE,
    'us-central1': [...GCP_BASE, ...GCP_ARM, ...GCP_GPU],
    'us-east1': [...GCP_BASE, ...GCP_GPU],
    'asia-northeast1': [...GCP_BASE, ...GCP_GPU],
    'southamerica-east1': GCP_BASE,
  },
  AWS: {
    'eu-west-3': [...AWS_BASE, ...AWS_GPU],
    'eu-west-1': [...AWS_BASE, ...AWS_GPU],
    'eu-central-1': [...AWS_BASE, ...AWS_GPU],
    'us-east-1': [...AWS_BASE, ...AWS_GPU],
    'us-west-2': [...AWS_BASE, ...AWS_GPU],
    'ap-southeast-1': AWS_BASE,
    'sa-east-1': AWS_BASE.filter((t) => t.architecture === 'AMD64'),
  },
  SCW: {
    'fr-par-1': SCW_BASE,
    'fr-par-2': SCW_BASE,
    'nl-ams-1': SCW_BASE,
    'pl-waw-1': SCW_BASE.filter((t) => !t.type.startsWith('PRO2')),
  },
};

/**
 * Managed database instance types (AWS RDS / ElastiCache / DocumentDB), per database type; every
 * AWS region of the table above offers them. The real API lists these for AWS only.
 */
export const AWS_MANAGED_DB_INSTANCE_TYPES: Record<string, string[]> = {
  POSTGRESQL: ['db.t3.micro', 'db.t3.small', 'db.t3.medium', 'db.t3.large', 'db.m5.large', 'db.m5.xlarge', 'db.r5.large', 'db.r5.xlarge'],
  MYSQL: ['db.t3.micro', 'db.t3.small', 'db.t3.medium', 'db.t3.large', 'db.m5.large', 'db.r5.large'],
  MONGODB: ['db.t3.medium', 'db.r5.large', 'db.r5.xlarge'],
  REDIS: ['cache.t3.micro', 'cache.t3.small', 'cache.t3.medium', 'cache.m5.large', 'cache.r5.large'],
};

/** The instance types a managed database of this type may use on AWS in this region (undefined: unknown region). */
export function awsManagedDbInstanceTypes(region: string, databaseType: string): string[] | undefined {
  if (!Object.prototype.hasOwnProperty.call(INSTANCE_TYPES.AWS, region)) return undefined;
  return AWS_MANAGED_DB_INSTANCE_TYPES[databaseType] ?? [];
}
