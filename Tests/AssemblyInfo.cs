// Recording tests measure timing against in-process truth; running several benchmarks at once on a 2-core CI
// machine would measure the scheduler instead. The one test about concurrent recordings runs its own pair.
[assembly: CollectionBehavior(DisableTestParallelization = true)]
// The collections that need a slow set-up run last, when the background has made it (Tests/Support/SetUpOrder.cs).
[assembly: TestCollectionOrderer(EtwSerializerProfiler.Tests.Support.SetUpOrder.TypeName, "EtwSerializerProfiler.Tests")]
