// Recording tests measure timing against in-process truth; running several benchmarks at once on a 2-core CI
// machine would measure the scheduler instead. The one test about concurrent recordings runs its own pair.
[assembly: CollectionBehavior(DisableTestParallelization = true)]
