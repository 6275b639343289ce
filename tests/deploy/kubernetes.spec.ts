import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';
import { asArray, asRecord, MIGRATING_APPS, NEST_APPS, parseDockerfile, parseYaml, read, root, stageNamed, yamlFilesUnder, type Json } from './support';
import { DURABLE_CONSUMERS, RETIRED_DURABLE_CONSUMERS } from '../../apps/notifications/src/persisted-names';

// Every kind the manifests may hold, validated by its maintained model (unknown kinds fail the test).
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'monitoring.coreos.com/v1/PodMonitor': PodMonitor,
};

interface K8sObject extends Json {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Json;
  data?: Record<string, string>;
}

function parseManifests(text: string, source: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((document, index) => {
    if ('errors' in document && document.errors.length) throw new Error(`${source} document ${index + 1}: ${document.errors[0].message}`);
    const value = document.toJS() as K8sObject | null;
    return value ? [value] : [];
  });
}

function validationProblems(objects: K8sObject[]): string[] {
  return objects.flatMap((object) => {
    const where = `${object.kind}/${object.metadata?.name}`;
    const Model = MODELS[`${object.apiVersion}/${object.kind}`];
    if (!Model) return [`${where}: no model for ${object.apiVersion} ${object.kind}; add it to MODELS`];
    try {
      new Model(object as never).validate();
      return [];
    } catch (error) {
      return [`${where}: ${(error as Error).message}`];
    }
  });
}

const podSpec = (workload: K8sObject) => asRecord(asRecord(workload.spec.template).spec);
const podLabels = (workload: K8sObject) => (asRecord(asRecord(workload.spec.template).metadata).labels ?? {}) as Record<string, string>;
const containersOf = (workload: K8sObject) => asArray(podSpec(workload).containers).map(asRecord);
const envOf = (workload: K8sObject) => asArray(containersOf(workload)[0]?.env).map(asRecord);
const selects = (selector: unknown, labels: Record<string, string>) => Object.entries(asRecord(selector)).every(([key, value]) => labels[key] === value);
const named = (objects: K8sObject[], kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name);

/** What kubernetes-models cannot see (it accepts a misspelt probe as an unknown field): the manifests' intent. */
function workloadProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const deployment of objects.filter((object) => object.kind === 'Deployment')) {
    const name = deployment.metadata.name;
    const pod = podSpec(deployment);
    if (asRecord(pod.securityContext).runAsNonRoot !== true) problems.push(`${name}: pod securityContext.runAsNonRoot is not true`);
    if (pod.automountServiceAccountToken !== false) problems.push(`${name}: mounts a service account token it never uses`);
    if ('replicas' in deployment.spec) problems.push(`${name}: sets replicas, which its autoscaler owns`);
    for (const container of containersOf(deployment)) {
      const where = `${name}/${String(container.name)}`;
      const probePath = (probe: string) => asRecord(asRecord(container[probe]).httpGet).path;
      if (probePath('livenessProbe') !== '/health/live') problems.push(`${where}: livenessProbe is not GET /health/live`);
      if (probePath('readinessProbe') !== '/health/ready') problems.push(`${where}: readinessProbe is not GET /health/ready`);
      for (const kind of ['requests', 'limits']) {
        for (const resource of ['cpu', 'memory']) if (!asRecord(asRecord(container.resources)[kind])[resource]) problems.push(`${where}: no resources.${kind}.${resource}`);
      }
      const security = asRecord(container.securityContext);
      if (security.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem is not true`);
      if (security.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
      if (!asArray(asRecord(security.capabilities).drop).includes('ALL')) problems.push(`${where}: capabilities do not drop ALL`);
    }
    const pdb = objects.some((object) => object.kind === 'PodDisruptionBudget' && selects(asRecord(object.spec.selector).matchLabels, podLabels(deployment)));
    if (!pdb) problems.push(`${name}: no PodDisruptionBudget selects its pods`);
    const scalers = objects.filter((object) => ['HorizontalPodAutoscaler', 'ScaledObject'].includes(object.kind) && asRecord(object.spec.scaleTargetRef).name === name);
    if (scalers.length !== 1) problems.push(`${name}: ${scalers.length} autoscalers target it (want one: an HPA or a KEDA ScaledObject)`);
  }
  return problems;
}

/** No secret value in the repository: no Secret objects, and every key, password or URL comes from a Secret. */
function secretProblems(objects: K8sObject[]): string[] {
  const problems = objects.filter((object) => object.kind === 'Secret').map((object) => `Secret/${object.metadata.name} is committed`);
  for (const workload of objects.filter((object) => object.kind === 'Deployment' || object.kind === 'Job')) {
    for (const container of containersOf(workload)) {
      for (const variable of asArray(container.env).map(asRecord)) {
        if (/KEY|PASSWORD|SECRET|DATABASE_URL|REDIS_URL|SMTP_URL/.test(String(variable.name)) && variable.value !== undefined) {
          problems.push(`${workload.metadata.name}: ${String(variable.name)} has a literal value; take it from a Secret`);
        }
      }
    }
  }
  for (const config of objects.filter((object) => object.kind === 'ConfigMap')) {
    for (const [key, value] of Object.entries(config.data ?? {})) {
      if (/KEY|PASSWORD|SECRET/.test(key) || /\/\/[^/@\s]+:[^/@\s]+@/.test(value)) problems.push(`ConfigMap/${config.metadata.name}: ${key} holds a secret`);
    }
  }
  return problems;
}

/** Every egress rule names where it may go: a rule with ports only would reach any address on those ports. */
function egressProblems(objects: K8sObject[]): string[] {
  return objects
    .filter((object) => object.kind === 'NetworkPolicy')
    .flatMap((policy) =>
      asArray(policy.spec.egress)
        .map(asRecord)
        .filter((rule) => asArray(rule.to).length === 0)
        .map((rule) => `NetworkPolicy/${policy.metadata.name}: egress to ports ${JSON.stringify(asArray(rule.ports).map((port) => asRecord(port).port))} has no \`to:\``),
    );
}

/** The image a manifest names must be built by a target of the one Dockerfile. */
function imageProblems(objects: K8sObject[]): string[] {
  const dockerfile = parseDockerfile(read('deploy/docker/Dockerfile'));
  const targetOf = (image: string) => {
    const app = image.replace(/^homing\//, '').replace(/:.*$/, '');
    if (app === 'gateway' || app === 'web') return app;
    return Object.keys(NEST_APPS).includes(app) ? 'service' : undefined;
  };
  return objects
    .filter((object) => object.kind === 'Deployment' || object.kind === 'Job')
    .flatMap((workload) => containersOf(workload).map((container) => String(container.image)))
    .filter((image) => {
      const target = targetOf(image);
      return !target || !stageNamed(dockerfile, target);
    })
    .map((image) => `${image}: no target of deploy/docker/Dockerfile builds it`);
}

const kubectlVersion = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
// Components and `labels` need kustomize v4+; Debian's own kubernetes-client (kubectl 1.20) embeds v2 and does not
// even print a "Kustomize Version" line.
const kustomizeVersion = /Kustomize Version: v(\d+)/.exec(kubectlVersion.stdout ?? '')?.[1];
const canRender = kubectlVersion.status === 0 && Number(kustomizeVersion) >= 4;
const renderSkipReason = kubectlVersion.status !== 0 ? 'kubectl is not installed' : `kubectl's kustomize is v${kustomizeVersion ?? '? (too old to say)'}, components need v4+`;
if (!canRender) {
  // Loud on purpose: in a run of many suites Jest reports a skipped case only as "1 skipped"; this shows the reason.
  console.warn(
    `tests/deploy/kubernetes.spec.ts: THE KUBERNETES OVERLAYS WERE NOT RENDERED (${renderSkipReason}).\n` +
      'Only the files of k8s/base and k8s/components were checked one by one. Install kubectl 1.21+ to check the overlays.',
  );
}

/** The objects of k8s/base and k8s/components, file by file, as they are before Kustomize: those complete enough to validate. */
function unrenderedObjects(): Array<K8sObject & { source: string }> {
  return [...yamlFilesUnder('k8s/base'), ...yamlFilesUnder('k8s/components')]
    .filter((file) => !/(^|\/)kustomization\.ya?ml$/.test(file))
    .flatMap((file) => parseManifests(read(file), file).map((object) => ({ ...object, source: file })))
    .filter((object) => object.apiVersion && object.kind && object.metadata?.name);
}

function render(overlay: string): K8sObject[] {
  const rendered = spawnSync('kubectl', ['kustomize', join(root, 'k8s/overlays', overlay)], { encoding: 'utf8' });
  if (rendered.status !== 0) throw new Error(`kubectl kustomize ${overlay}: ${rendered.stderr}`);
  return parseManifests(rendered.stdout, overlay);
}

describe('k8s/', () => {
  const files = yamlFilesUnder('k8s');
  const kustomizations = files.filter((file) => /(^|\/)kustomization\.ya?ml$/.test(file));

  it('names only files and directories that exist in each kustomization, and generates no Secret', () => {
    const problems: string[] = [];
    for (const file of kustomizations) {
      const kustomization = parseYaml(read(file), file);
      if (asArray(kustomization.secretGenerator).length) problems.push(`${file}: generates a Secret`);
      const referenced = [...asArray(kustomization.resources), ...asArray(kustomization.components)].filter((entry): entry is string => typeof entry === 'string');
      for (const entry of referenced) {
        const path = join(dirname(file), entry);
        const ok = existsSync(join(root, path)) && (!statSync(join(root, path)).isDirectory() || existsSync(join(root, path, 'kustomization.yaml')));
        if (!ok) problems.push(`${file}: ${entry} (${path}) does not exist`);
      }
    }
    expect(problems).toEqual([]);
  });

  describe('files of k8s/base and k8s/components one by one (checked with or without kubectl)', () => {
    const objects = unrenderedObjects();

    it('validates each complete object against its API schema', () => {
      expect(objects.filter((object) => object.kind === 'Deployment').length).toBe(8);
      expect(objects.length).toBeGreaterThan(20);
      expect(validationProblems(objects)).toEqual([]);
    });

    it('commits no secret value, names only images the Dockerfile builds, and gives every egress rule a destination', () => {
      expect(secretProblems(objects)).toEqual([]);
      expect(imageProblems(objects)).toEqual([]);
      expect(egressProblems(objects)).toEqual([]);
    });
  });

  it('catches an egress rule without `to:`', () => {
    const [policy] = parseManifests('apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: { name: open }\nspec:\n  podSelector: {}\n  egress: [{ ports: [{ port: 5432 }] }]\n', 'inline');
    expect(egressProblems([policy])).toEqual(['NetworkPolicy/open: egress to ports [5432] has no `to:`']);
  });

  if (!canRender) {
    // Said clearly rather than passed quietly (the console.warn above says it in multi-suite runs too).
    it.skip(`renders the overlays — skipped: ${renderSkipReason}`, () => undefined);
    return;
  }

  describe.each(['dev', 'prod'])('the %s overlay, rendered by kubectl kustomize', (overlay) => {
    const objects = render(overlay);
    const deployments = objects.filter((object) => object.kind === 'Deployment');

    it('validates every object against its API schema (kubernetes-models, KEDA, Prometheus Operator)', () => {
      expect(objects.length).toBeGreaterThan(20);
      expect(validationProblems(objects)).toEqual([]);
    });

    it('catches an invalid object', () => {
      const [broken] = parseManifests('apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: x }\nspec:\n  template: { spec: { containers: [{ name: x }] } }\n', 'inline');
      expect(validationProblems([broken])[0]).toContain('selector');
    });

    it('runs every app with probes, requests, limits, a locked-down security context, a PDB and one autoscaler', () => {
      expect(deployments.map((object) => object.metadata.name).sort()).toEqual(['gateway', 'identity', 'items', 'mail-relay', 'messaging', 'notifications-consumer', 'notifications-worker', 'web']);
      expect(workloadProblems(objects)).toEqual([]);
    });

    it('keeps secret values out of the repository', () => {
      expect(secretProblems(objects)).toEqual([]);
      expect(secretProblems([...objects, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'leak' }, spec: {} }])).toEqual(['Secret/leak is committed']);
    });

    it('names only images that a target of the Dockerfile builds', () => {
      expect(imageProblems(objects)).toEqual([]);
    });

    it('lets only the gateway and web be reached from the Ingress, and the mail relay by SMTP', () => {
      const ingress = named(objects, 'Ingress', 'homing') as K8sObject;
      const routes = asArray(ingress.spec.rules).flatMap((rule) =>
        asArray(asRecord(asRecord(rule).http).paths).map((path) => [asRecord(path).path, asRecord(asRecord(asRecord(path).backend).service).name]),
      );
      expect(Object.fromEntries(routes as Array<[string, string]>)).toEqual({ '/api': 'gateway', '/qr': 'gateway', '/lang': 'gateway', '/': 'web' });
      expect(objects.filter((object) => object.kind === 'Service').map((object) => object.metadata.name).sort()).toEqual(['gateway', 'mail-relay', 'web']);
      // The relay's Service takes SMTP only, to the pod's smtp port; its pods admit nothing else from outside.
      expect(asArray((named(objects, 'Service', 'mail-relay') as K8sObject).spec.ports)).toEqual([{ name: 'smtp', port: 25, targetPort: 'smtp' }]);
      const relayPod = podLabels(named(objects, 'Deployment', 'mail-relay') as K8sObject);
      const relayIngress = objects
        .filter((object) => object.kind === 'NetworkPolicy' && asArray(object.spec.ingress).length > 0 && matchesSelector(object.spec.podSelector, relayPod))
        .flatMap((policy) => asArray(policy.spec.ingress).flatMap((rule) => asArray(asRecord(rule).ports).map((port) => asRecord(port).port)));
      expect([...new Set(relayIngress)].sort()).toEqual(['http', 'smtp']);
      // NetworkPolicies: all denied by default; ingress-controller traffic admitted to the edge pods only.
      const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
      const denyAll = named(objects, 'NetworkPolicy', 'default-deny');
      expect(denyAll?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
      const fromIngressController = policies.filter((policy) => JSON.stringify(policy.spec.ingress ?? []).includes('ingress-nginx'));
      const admitted = deployments.filter((deployment) => fromIngressController.some((policy) => matchesSelector(policy.spec.podSelector, podLabels(deployment))));
      expect(admitted.map((deployment) => deployment.metadata.name).sort()).toEqual(['gateway', 'web']);
    });

    it('has Prometheus scrape each pod on its http port alone', () => {
      // Annotation-based scraping makes a target of every declared port; a pod with more than one (the relay's smtp)
      // names the one that serves /metrics, or Prometheus would speak HTTP to its SMTP listener every interval.
      const problems = deployments.flatMap((deployment) => {
        const template = asRecord(deployment.spec.template);
        const annotations = asRecord(asRecord(template.metadata).annotations);
        if (annotations['prometheus.io/scrape'] !== 'true') return [];
        const ports = asArray(asRecord(asArray(asRecord(template.spec).containers)[0]).ports).map(asRecord);
        const http = ports.find((port) => port.name === 'http');
        if (ports.length < 2) return [];
        return String(annotations['prometheus.io/port']) === String(http?.containerPort) ? [] : [`${deployment.metadata.name}: prometheus.io/port is ${annotations['prometheus.io/port']}, not its http port`];
      });
      expect(deployments.some((deployment) => asArray(asRecord(asArray(asRecord(asRecord(deployment.spec.template).spec).containers)[0]).ports).length > 1)).toBe(true);
      expect(problems).toEqual([]);
    });

    it('gives the services egress to NATS, PostgreSQL and Redis only, each rule with a destination, and SMTP and push to the notification workers', () => {
      expect(egressProblems(objects)).toEqual([]);
      const egressPorts = (name: string) => {
        const deployment = named(objects, 'Deployment', name) as K8sObject;
        return objects
          .filter((object) => object.kind === 'NetworkPolicy' && matchesSelector(object.spec.podSelector, podLabels(deployment)))
          .flatMap((policy) => asArray(policy.spec.egress).flatMap((rule) => asArray(asRecord(rule).ports).map((port) => asRecord(port).port)))
          .filter((port) => port !== 53);
      };
      expect(egressPorts('items').sort((a, b) => Number(a) - Number(b))).toEqual([4222, 4318, 5432, 6379]);
      expect(egressPorts('notifications-worker')).toEqual(expect.arrayContaining([25, 443, 587]));
      expect(egressPorts('web')).toEqual([8080]);
    });

    it('runs the notification roles apart, scaled by KEDA on queue depth (delayed jobs included) and on consumer lag', () => {
      const role = (name: string) => envOf(named(objects, 'Deployment', name) as K8sObject).find((variable) => variable.name === 'NOTIFICATIONS_ROLE')?.value;
      expect([role('notifications-consumer'), role('notifications-worker')]).toEqual(['consumer', 'worker']);
      const triggers = (name: string) => asArray((named(objects, 'ScaledObject', name) as K8sObject).spec.triggers).map(asRecord);
      const queries = triggers('notifications-worker').map((trigger) => String(asRecord(trigger.metadata).query));
      expect(queries.length).toBe(2);
      for (const query of queries) expect(query).toContain('delayed');
      const lagConsumers = triggers('notifications-consumer').map((trigger) => asRecord(trigger.metadata).consumer);
      // Every durable consumer notifications runs; none it took over (they are deleted once nothing pulls from them).
      const durables = Object.values(DURABLE_CONSUMERS);
      expect(durables.length).toBeGreaterThan(0);
      for (const retired of Object.values(RETIRED_DURABLE_CONSUMERS)) expect(lagConsumers).not.toContain(retired);
      expect([...lagConsumers].sort()).toEqual([...durables].sort());
    });

    it('migrates each service in its own Job', () => {
      const jobs = objects.filter((object) => object.kind === 'Job');
      expect(jobs.map((job) => asArray(containersOf(job)[0].command).join(' ')).sort()).toEqual(MIGRATING_APPS.map((app) => `node dist/apps/${app}/main.js migrate`));
      for (const job of jobs) {
        expect(asRecord(podSpec(job).securityContext).runAsNonRoot).toBe(true);
        // The shared parts, written once in k8s/components/node-service.
        expect({ job: job.metadata.name, restartPolicy: podSpec(job).restartPolicy, backoffLimit: job.spec.backoffLimit }).toEqual({ job: job.metadata.name, restartPolicy: 'OnFailure', backoffLimit: 4 });
        expect(envOf(job).find((variable) => variable.name === 'DATABASE_URL')?.valueFrom).toEqual({ secretKeyRef: { name: 'homing-secrets', key: 'DATABASE_URL' } });
        expect(asRecord(asRecord(containersOf(job)[0].resources).limits).memory).toBeDefined();
      }
    });

    it('gives every PodDisruptionBudget and HPA the shared policy (k8s/components/availability)', () => {
      for (const pdb of objects.filter((object) => object.kind === 'PodDisruptionBudget')) expect({ pdb: pdb.metadata.name, maxUnavailable: pdb.spec.maxUnavailable }).toEqual({ pdb: pdb.metadata.name, maxUnavailable: 1 });
      const hpas = objects.filter((object) => object.kind === 'HorizontalPodAutoscaler');
      expect(hpas.map((hpa) => hpa.metadata.name).sort()).toEqual(['gateway', 'identity', 'items', 'mail-relay', 'messaging', 'web']);
      for (const hpa of hpas) {
        expect(asArray(hpa.spec.metrics)).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);
      }
    });

    it('sizes the overlay for its purpose', () => {
      const config = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name.startsWith('homing-config-'));
      const minReplicas = [
        ...objects.filter((object) => object.kind === 'HorizontalPodAutoscaler').map((object) => Number(object.spec.minReplicas)),
        ...objects.filter((object) => object.kind === 'ScaledObject').map((object) => Number(object.spec.minReplicaCount)),
      ];
      if (overlay === 'prod') {
        expect(config?.data).toMatchObject({ LOG_LEVEL: 'info', OTEL_TRACES_SAMPLER_ARG: '0.1', NODE_ENV: 'production', JETSTREAM_REPLICAS: '3' });
        expect(Math.min(...minReplicas)).toBeGreaterThanOrEqual(2);
        // Each service connects to NATS as its own user (deploy/helm/nats-values.yaml).
        const natsUsers = deployments
          .filter((deployment) => deployment.metadata.name !== 'web')
          .map((deployment) => asRecord(asRecord(envOf(deployment).find((variable) => variable.name === 'NATS_URL')?.valueFrom).secretKeyRef).key);
        const helmUsers = [...read('deploy/helm/nats-values.yaml').matchAll(/- user: ([a-z]+)/g)].map((match) => match[1]);
        for (const user of natsUsers) expect(helmUsers).toContain(user);
        expect(objects.some((object) => object.kind === 'PodMonitor')).toBe(true);
        // The capacity model's sizes (docs/operations.md §7).
        const cpuRequest = (name: string) => asRecord(asRecord(containersOf(named(objects, 'Deployment', name) as K8sObject)[0].resources).requests).cpu;
        expect([cpuRequest('gateway'), cpuRequest('identity')]).toEqual(['500m', '200m']);
        expect((named(objects, 'HorizontalPodAutoscaler', 'gateway') as K8sObject).spec.maxReplicas).toBe(12);
      } else {
        expect(Math.min(...minReplicas)).toBe(1);
      }
    });
  });
});

function matchesSelector(selector: unknown, labels: Record<string, string>): boolean {
  const { matchLabels, matchExpressions } = asRecord(selector);
  const expressionsHold = asArray(matchExpressions)
    .map(asRecord)
    .every((expression) => {
      const values = asArray(expression.values);
      const value = labels[String(expression.key)];
      return expression.operator === 'In' ? values.includes(value) : expression.operator === 'NotIn' ? !values.includes(value) : expression.operator === 'Exists' ? value !== undefined : value === undefined;
    });
  return selects(matchLabels, labels) && expressionsHold;
}
