using EtwSerializerProfiler.Analyzer.Collections;


namespace EtwSerializerProfiler.Tests.Analyzer.Collections;

public sealed class StackTreeTests
{
    [Fact]
    public void A_stack_is_found_again_whole_and_stacks_share_their_outer_frames()
    {
        var stacks = new StackTree<int>();
        var a = stacks.Intern([5, 4, 3, 2, 1]);      // leaf 5, root 1
        Assert.Equal(5, stacks.Count);               // one node per frame
        Assert.Equal(a, stacks.Intern([5, 4, 3, 2, 1]));
        Assert.Equal(5, stacks.Count);

        var b = stacks.Intern([6, 4, 3, 2, 1]);      // another leaf over the same callers: one node more
        Assert.Equal(6, stacks.Count);
        Assert.NotEqual(a, b);
        Assert.Equal(stacks.Caller(a), stacks.Caller(b));
        Assert.Equal([6, 4, 3, 2, 1], stacks.ToArray(b));

        var caller = stacks.Intern([4, 3, 2, 1]);    // a stack that is another's outer part is that node
        Assert.Equal(stacks.Caller(a), caller);
        Assert.Equal(6, stacks.Count);

        Assert.Equal(-1, stacks.Intern([]));
        var c = stacks.Intern([5, 4, 3, 2, 9]);      // same leafward frames, another root: nothing shared
        Assert.Equal(11, stacks.Count);
        Assert.Equal([5, 4, 3, 2, 9], stacks.ToArray(c));
        Assert.Equal(5, stacks.Leaf(c));
    }

    [Fact]
    public void Prefixes_and_extensions_of_a_stack_are_other_stacks()
    {
        var stacks = new StackTree<int>();
        var whole = stacks.Intern([3, 2, 1]);
        var longer = stacks.Intern([3, 2, 1, 0]);    // one frame further rootward: none of whole's nodes
        var shorter = stacks.Intern([3, 2]);
        Assert.Equal(3, new[] { whole, longer, shorter }.Distinct().Count());
        Assert.Equal([3, 2, 1, 0], stacks.ToArray(longer));
        Assert.Equal([3, 2], stacks.ToArray(shorter));
        Assert.Equal([3, 2, 1], stacks.ToArray(whole));
    }

    [Fact]
    public void Many_random_stacks_read_back_as_given()
    {
        var random = new Random(42);
        var stacks = new StackTree<int>();
        var given = new List<(int Id, int[] Frames)>();
        for (var i = 0; i < 2000; i++)
        {
            var frames = Enumerable.Range(0, random.Next(1, 40)).Select(_ => random.Next(0, 6)).ToArray();
            given.Add((stacks.Intern(frames), frames));
        }
        foreach (var (id, frames) in given)
        {
            Assert.Equal(frames, stacks.ToArray(id));
            Assert.Equal(id, stacks.Intern(frames));
        }
        Assert.Equal(given.Select(g => string.Join(",", g.Frames)).Distinct().Count(), given.Select(g => g.Id).Distinct().Count());
    }

    [Fact]
    public void Return_addresses_share_their_callers_and_read_back_leaf_first()
    {
        var stacks = new StackTree<ulong>();
        var a = stacks.Intern([0x30, 0x20, 0x10]); // leaf first: 0x30 called by 0x20 called by 0x10
        var b = stacks.Intern([0x31, 0x20, 0x10]); // another leaf in the same caller
        Assert.Equal(a, stacks.Intern([0x30, 0x20, 0x10]));
        Assert.NotEqual(a, b);
        Assert.Equal(4, stacks.Count); // 0x10, 0x20, and the two leaves
        Assert.Equal(stacks.Caller(a), stacks.Caller(b));
        Assert.Equal(0x30UL, stacks.Leaf(a));
        Assert.Equal(0x20UL, stacks.Leaf(stacks.Caller(a)));
        var root = stacks.Caller(stacks.Caller(a));
        Assert.Equal(0x10UL, stacks.Leaf(root));
        Assert.Equal(-1, stacks.Caller(root));
        Assert.NotEqual(stacks.Intern([0x30, 0x20]), stacks.Intern([0x30, 0x21])); // the same address under other callers
    }
}
