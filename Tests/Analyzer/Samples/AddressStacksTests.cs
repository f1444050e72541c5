using EtwSerializerProfiler.Analyzer.Samples;

namespace EtwSerializerProfiler.Tests.Analyzer.Samples;

public sealed class AddressStacksTests
{
    [Fact]
    public void Stacks_are_interned_from_the_root_and_share_their_callers()
    {
        var stacks = new AddressStacks();
        var a = stacks.Intern([0x30, 0x20, 0x10]); // leaf first: 0x30 called by 0x20 called by 0x10
        var b = stacks.Intern([0x31, 0x20, 0x10]); // another leaf in the same caller
        Assert.Equal(a, stacks.Intern([0x30, 0x20, 0x10]));
        Assert.NotEqual(a, b);
        Assert.Equal(4, stacks.Count); // 0x10, 0x20, and the two leaves
        Assert.Equal(stacks.Caller(a), stacks.Caller(b));
        Assert.Equal(0x30UL, stacks.Address(a));
        Assert.Equal(0x20UL, stacks.Address(stacks.Caller(a)));
        var root = stacks.Caller(stacks.Caller(a));
        Assert.Equal(0x10UL, stacks.Address(root));
        Assert.Equal(-1, stacks.Caller(root));
        Assert.Equal(-1, stacks.Intern([]));
    }

    [Fact]
    public void The_same_address_under_different_callers_is_two_stacks()
    {
        var stacks = new AddressStacks();
        Assert.NotEqual(stacks.Intern([0x30, 0x20]), stacks.Intern([0x30, 0x21]));
    }
}
