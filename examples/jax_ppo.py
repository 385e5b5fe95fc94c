"""Masked PPO for UNO that never leaves the device, in the style of PureJaxRL.

Needs the ``jax`` extra (jax, flax, optax; JAX's CPU build), from the checkout::

    pip install -e ".[jax]"

One seat of classic UNO (2 players by default) learns against the ``random`` policy on
the pure-JAX engine (``uno_env.jax``), or with ``--opponent greedy`` / ``heuristic``
against the panel's baseline agents (``uno_env.jax.policies``: the numba agents' moves,
in JAX). The games, the opponents' moves (uniformly random legal actions drawn from JAX
keys inside the environment's step, or the baseline's), the rollout, GAE and
the PPO epochs are all one ``jax.jit``'d function, ``update``: a Python loop calls it and
prints progress; nothing goes back to the host between the environment and the learner.

    python examples/jax_ppo.py                        # about 2M decisions
    python examples/jax_ppo.py --updates 60 --save-curve docs/figures/jax_ppo_curve.png
    python examples/jax_ppo.py --opponent heuristic   # against the panel's heuristic

The environment (``LearnerEnv``): each slot holds one game, the learner's seat (drawn per
game) and a key. A step applies the learner's action, then lets the opponents move (a
``lax.while_loop``) until the learner decides again or the game ends; the reward is the
learner's rewards over those moves (+1 for a win, -1 for a loss, 0 for a game cut by the
turn limit). A finished game is replaced by a new one within the step (auto-reset), its
deal drawn from the slot's key. Truncated games are treated as ends (no bootstrap).

Invalid-action masking: the logits of illegal actions are set to ``MASKED_LOGIT`` in the
rollout and in the loss, so the policy never samples an illegal move. The observation is
uno-env's (the vector ``EverySeatBatch`` gives), scaled as the SB3 path scales it
(``config_scale`` of ``uno_env.integrations.scaling``).

The win rate printed at the end (and before training, for the untrained policy) is
measured on the same ``--eval-games`` deals each time, each game played to its end with
the policy's sampled moves. ``--save-curve PATH`` writes the learning curve (the win rate
of the training games of each update) as a PNG. Needs the ``jax`` extra (jax, flax,
optax; the install line at the top) and matplotlib (a core dependency) for the curve.
"""
from __future__ import annotations

import argparse
import time
from typing import NamedTuple

import numpy as np

#: the command that installs what this example needs beyond uno-env itself
INSTALL = 'pip install -e ".[jax]"'
try:
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    import optax
    from flax.training.train_state import TrainState
except ModuleNotFoundError as err:
    raise ModuleNotFoundError(f"this example needs {err.name} (the jax extra): {INSTALL}",
                              name=err.name) from None

from uno_env.jax import core
from uno_env.jax.policies import POLICIES

from uno_env.integrations.scaling import config_scale

#: the logit of an illegal action (exp of it underflows to 0 in float32)
MASKED_LOGIT = -1e9


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--opponent", choices=("random", *POLICIES), default="random",
                   help="the other seats' agent (greedy, heuristic: uno_env.jax.policies)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and the network")
    p.add_argument("--updates", type=int, default=120, help="PPO updates to run")
    p.add_argument("--num-envs", type=int, default=256, help="games played in parallel")
    p.add_argument("--num-steps", type=int, default=64,
                   help="learner decisions per game in one rollout")
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--anneal-lr", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--eval-games", type=int, default=1000,
                   help="games of the final evaluation (and of the untrained one)")
    p.add_argument("--print-every", type=int, default=10, help="updates between lines")
    p.add_argument("--save-curve", metavar="PATH", help="write the learning curve (PNG)")
    args = p.parse_args(argv)
    for name in ("updates", "num_envs", "num_steps", "update_epochs", "num_minibatches",
                 "hidden", "eval_games", "print_every"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if (args.num_envs * args.num_steps) % args.num_minibatches:
        p.error("--num-minibatches must divide --num-envs x --num-steps")
    return args


# -- the environment: one learning seat, its opponents, all in JAX ----------------------------

class LearnerEnv(NamedTuple):
    """A batch of slots: each one's game, the learner's seat in it and the slot's key
    (every field has the batch axis first)."""

    game: core.State
    seat: jax.Array
    key: jax.Array


def _over(game: core.State) -> jax.Array:
    return game.terminated | game.truncated


def _where(cond, new, old):
    return jax.tree.map(lambda n, o: jnp.where(cond.reshape(cond.shape + (1,) * (n.ndim - 1)),
                                               n, o), new, old)


def _deal(params: core.Params, keys, first_seat: bool = False) -> LearnerEnv:
    """New games (each one's seed from its key) and the learner's seats: drawn, or with
    ``first_seat`` the seat that moves first."""
    def one(key):
        k_seed, k_seat, key = jax.random.split(key, 3)
        seed = jax.random.bits(k_seed, (2,), jnp.uint32)
        seed = seed.at[0].set(seed[0] & jnp.uint32(0x7FFFFFFF))    # uno-env's seeds
        game = core.init(params, core.seed_stream(seed, 0))
        seat = game.current_player if first_seat else \
            jax.random.randint(k_seat, (), 0, params.num_players, jnp.int32)
        return LearnerEnv(game, seat, key)
    return jax.vmap(one)(keys)


def advance(params: core.Params, env: LearnerEnv, actions, first, auto_reset: bool = True,
            opponent: str = "random"):
    """Plays the batch on to the learner's next decisions: the learner's ``actions`` in
    the slots where ``first`` is True, then the opponents' moves (``opponent``:
    uniformly random legal moves, or a baseline of ``uno_env.jax.policies``) until the learner decides again or the game ends (where ``first`` is False, only the
    opponents move). With ``auto_reset`` a finished game is replaced by a new deal,
    played on to the learner's first decision.
    Returns ``(env, reward, done)``: the learner's rewards over those moves, and which
    slots' games ended.

    One loop over the whole batch (not a vmapped one), so the engine's ``step`` and
    ``init`` are each traced once, and new games are dealt (``lax.cond``) only in the
    iterations where some game ended."""
    batch = env.seat.shape[0]
    step = jax.vmap(lambda game, a: core.step(params, game, a))

    def active(env, first):
        return first | (~_over(env.game) & (env.game.current_player != env.seat))

    def body(carry):
        env, first, reward, done = carry
        live = active(env, first)
        keys = jax.vmap(lambda k: jax.random.split(k, 3))(env.key)
        if opponent == "random":
            theirs = jax.vmap(lambda k, m: jax.random.categorical(
                k, jnp.where(m, 0.0, MASKED_LOGIT)))(keys[:, 1], env.game.legal_action_mask)
        else:   # -1 in a finished game (not stepped: see live)
            theirs = jnp.maximum(jax.vmap(lambda g: POLICIES[opponent](params, g))(
                env.game), 0)
        game = step(env.game, jnp.where(first, actions, theirs).astype(jnp.int32))
        game = _where(live, game, env.game)
        gained = jnp.take_along_axis(game.rewards, env.seat[:, None], 1)[:, 0]
        reward = reward + jnp.where(live, gained, 0.0)
        env = env._replace(game=game, key=keys[:, 0])
        ended = live & _over(game) & ~done
        done = done | ended
        if auto_reset:
            env = jax.lax.cond(ended.any(),
                               lambda: _where(ended, _deal(params, keys[:, 2]), env),
                               lambda: env)
        return env, jnp.zeros_like(first), reward, done

    env, _, reward, done = jax.lax.while_loop(
        lambda carry: active(carry[0], carry[1]).any(), body,
        (env, first, jnp.zeros(batch, jnp.float32), jnp.zeros(batch, bool)))
    return env, reward, done


def observe(params: core.Params, env: LearnerEnv, scale):
    """The learner's observations (scaled) and legal masks, batched."""
    obs = jax.vmap(lambda game, seat: core.observe(params, game, seat))(env.game, env.seat)
    return obs * scale, env.game.legal_action_mask


# -- the policy -----------------------------------------------------------------------------

class ActorCritic(nn.Module):
    num_actions: int
    hidden: int = 128

    @nn.compact
    def __call__(self, obs, mask):
        def torso(x):
            for _ in range(2):
                x = nn.tanh(nn.Dense(self.hidden, kernel_init=nn.initializers.orthogonal(
                    np.sqrt(2)))(x))
            return x
        logits = nn.Dense(self.num_actions,
                          kernel_init=nn.initializers.orthogonal(0.01))(torso(obs))
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(torso(obs))
        return jnp.where(mask, logits, MASKED_LOGIT), value[..., 0]


class Transition(NamedTuple):
    obs: jax.Array
    mask: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    done: jax.Array


def make_train(args: argparse.Namespace):
    """``(init, update, evaluate)``: ``init(key)`` the runner state; ``update(runner)``
    one jitted PPO update (rollout, GAE, epochs); ``evaluate(params, key)`` the win rate
    over ``args.eval_games`` deals."""
    params = core.make_params("classic", args.players)
    scale = jnp.asarray(config_scale(params.config))
    net = ActorCritic(params.num_actions, args.hidden)
    batch = args.num_envs * args.num_steps
    minibatch = batch // args.num_minibatches

    def lr(count):
        frac = 1.0 - (count // (args.num_minibatches * args.update_epochs)) / args.updates
        return args.learning_rate * (frac if args.anneal_lr else 1.0)

    def v_obs(envs):
        return observe(params, envs, scale)

    def v_step(envs, actions):
        return advance(params, envs, actions, jnp.ones(len(actions), bool),
                       opponent=args.opponent)

    def init(key):
        k_net, k_env, key = jax.random.split(key, 3)
        # the first game of each slot seats the learner first (no opponent moves to
        # play here, so this compiles only the engine's init); later deals draw the seat
        envs = _deal(params, jax.random.split(k_env, args.num_envs), first_seat=True)
        obs, mask = v_obs(envs)
        net_params = net.init(k_net, obs[:1], mask[:1])
        tx = optax.chain(optax.clip_by_global_norm(args.max_grad_norm),
                         optax.adam(learning_rate=lr, eps=1e-5))
        state = TrainState.create(apply_fn=net.apply, params=net_params, tx=tx)
        return state, envs, key

    def rollout_step(carry, _):
        state, envs, key = carry
        key, sub = jax.random.split(key)
        obs, mask = v_obs(envs)
        logits, value = net.apply(state.params, obs, mask)
        action = jax.random.categorical(sub, logits).astype(jnp.int32)
        log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], 1)[:, 0]
        # checks, reported by update: a sampled action is legal, and it is the
        # learner's turn in every slot
        bad = ~jnp.take_along_axis(mask, action[:, None], 1)[:, 0] | \
            (envs.game.current_player != envs.seat)
        envs, reward, done = v_step(envs, action)
        return (state, envs, key), (Transition(obs, mask, action, log_prob, value, reward,
                                               done), bad)

    def gae(traj: Transition, last_value):
        def body(carry, t):
            next_adv, next_value = carry
            not_done = 1.0 - t.done.astype(jnp.float32)
            delta = t.reward + args.gamma * next_value * not_done - t.value
            adv = delta + args.gamma * args.gae_lambda * not_done * next_adv
            return (adv, t.value), adv
        _, adv = jax.lax.scan(body, (jnp.zeros_like(last_value), last_value), traj,
                              reverse=True)
        return adv, adv + traj.value

    def loss_fn(net_params, mb: Transition, adv, ret):
        logits, value = net.apply(net_params, mb.obs, mb.mask)
        log_probs = jax.nn.log_softmax(logits)
        log_prob = jnp.take_along_axis(log_probs, mb.action[:, None], 1)[:, 0]
        ratio = jnp.exp(log_prob - mb.log_prob)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - args.clip_coef,
                                                1 + args.clip_coef) * adv).mean()
        v_loss = 0.5 * ((value - ret) ** 2).mean()
        entropy = -(jnp.exp(log_probs) * log_probs).sum(-1).mean()
        return pg + args.vf_coef * v_loss - args.ent_coef * entropy, (pg, v_loss, entropy)

    @jax.jit
    def update(runner):
        (state, envs, key), (traj, bad) = jax.lax.scan(rollout_step, runner, None,
                                                       args.num_steps)
        obs, mask = v_obs(envs)
        _, last_value = net.apply(state.params, obs, mask)
        adv, ret = gae(traj, last_value)

        def epoch(carry, _):
            state, key = carry
            key, sub = jax.random.split(key)
            order = jax.random.permutation(sub, batch)
            flat = jax.tree.map(lambda x: x.reshape((batch,) + x.shape[2:]),
                                (traj, adv, ret))
            mbs = jax.tree.map(lambda x: x[order].reshape((args.num_minibatches, minibatch)
                                                          + x.shape[1:]), flat)

            def sgd(state, mb):
                grads, aux = jax.grad(loss_fn, has_aux=True)(state.params, *mb)
                return state.apply_gradients(grads=grads), aux
            state, aux = jax.lax.scan(sgd, state, mbs)
            return (state, key), aux

        (state, key), aux = jax.lax.scan(epoch, (state, key), None, args.update_epochs)
        games = traj.done.sum()
        metrics = {"games": games, "wins": (traj.done & (traj.reward > 0)).sum(),
                   "truncated": (traj.done & (traj.reward == 0)).sum(),
                   "entropy": aux[2].mean(), "value_loss": aux[1].mean(),
                   "bad_decisions": bad.sum()}
        return (state, envs, key), metrics

    init = jax.jit(init)
    @jax.jit
    def evaluate(net_params, key):
        """The win rate of the sampled policy on the deals of ``key``, each game played
        to its end."""
        k_deal, key = jax.random.split(key)
        n = args.eval_games
        envs = _deal(params, jax.random.split(k_deal, n))

        def cond(carry):
            return ~carry[2].all()

        def body(carry):
            envs, won, done, key = carry
            key, sub = jax.random.split(key)
            obs, mask = v_obs(envs)
            logits, _ = net.apply(net_params, obs, mask)
            action = jax.random.categorical(sub, logits).astype(jnp.int32)
            # in the first pass the games that an opponent opens are played on to the
            # learner's first decision (its sampled action is not used there)
            turn = envs.game.current_player == envs.seat
            envs, reward, finished = advance(params, envs, action, ~done & turn,
                                             auto_reset=False, opponent=args.opponent)
            won = won | (~done & finished & (reward > 0))
            return envs, won, done | finished, key

        _, won, _, _ = jax.lax.while_loop(
            cond, body, (envs, jnp.zeros(n, bool), jnp.zeros(n, bool), key))
        return won.mean()

    return init, update, evaluate


def train(args: argparse.Namespace) -> dict:
    """Runs the updates and returns the run's figures (see ``main``)."""
    init, update, evaluate = make_train(args)
    key = jax.random.PRNGKey(args.seed)
    key, k_eval = jax.random.split(key)
    t0 = time.perf_counter()
    runner = init(key)
    before = float(evaluate(runner[0].params, k_eval))
    evaluated = time.perf_counter()
    runner, metrics = update(runner)               # compiles, then the first update
    jax.block_until_ready(metrics)
    first = time.perf_counter() - evaluated
    print(f"classic, {args.players} players: the untrained policy wins {before:.3f} "
          f"against {args.opponent} ({args.eval_games} games, {evaluated - t0:.1f} s with the "
          f"compile); first update {first:.1f} s with the compile", flush=True)
    samples_per_update = args.num_envs * args.num_steps
    curve = [(samples_per_update, _rate(metrics))]
    bad = int(metrics["bad_decisions"])
    start = time.perf_counter()
    for u in range(2, args.updates + 1):
        runner, metrics = update(runner)
        curve.append((u * samples_per_update, _rate(metrics)))
        bad += int(metrics["bad_decisions"])
        if u % args.print_every == 0 or u == args.updates:
            elapsed = time.perf_counter() - start
            games, cut = int(metrics["games"]), int(metrics["truncated"])
            print(f"update {u:4d}  decisions {u * samples_per_update:>9,}  "
                  f"training games {games:4d} (cut {cut:4d})  win rate {curve[-1][1]:.3f}  "
                  f"entropy {float(metrics['entropy']):.2f}  "
                  f"{(u - 1) * samples_per_update / elapsed:,.0f} decisions/s", flush=True)
            if games and cut > games // 2:
                print(f"warning: {cut} of {games} training games were cut by the turn "
                      f"limit (they pay 0): the policy may be stalling (docs/jax.md, "
                      f"self-play that cannot stall: settle_cut=True, gamma 1.0)", flush=True)
    jax.block_until_ready(runner)
    seconds = time.perf_counter() - start
    after = float(evaluate(runner[0].params, k_eval))
    print(f"updates 2..{args.updates}: {seconds:.1f} s; final evaluation "
          f"{time.perf_counter() - start - seconds:.1f} s", flush=True)
    rate = (args.updates - 1) * samples_per_update / seconds if args.updates > 1 else None
    print(f"final win rate against {args.opponent}: {after:.3f} ({args.eval_games} games; "
          f"untrained {before:.3f}); {args.updates * samples_per_update:,} decisions in "
          f"{time.perf_counter() - t0:.0f} s"
          + (f", {rate:,.0f} decisions/s after the compile" if rate else ""), flush=True)
    result = {"before": before, "after": after, "curve": curve, "samples_per_s": rate,
              "first_update_s": first, "params": runner[0].params,
              "bad_decisions": bad}
    if args.save_curve:
        save_curve(args, result)
    return result


def _rate(metrics) -> float:
    games = int(metrics["games"])
    return int(metrics["wins"]) / games if games else float("nan")


def save_curve(args: argparse.Namespace, result: dict) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x, y = np.array(result["curve"], dtype=float).T
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(x, y, lw=1, alpha=0.4, label="training games of each update")
    k = max(1, len(y) // 20)
    if len(y) >= k:
        smooth = np.convolve(np.nan_to_num(y, nan=np.nanmean(y)), np.ones(k) / k, "valid")
        ax.plot(x[k - 1:], smooth, lw=2, label=f"mean of {k} updates")
    ax.axhline(result["before"], color="gray", ls="--",
               label=f"untrained: {result['before']:.2f}")
    ax.scatter([x[-1]], [result["after"]], color="black", zorder=3,
               label=f"final evaluation: {result['after']:.2f}")
    ax.set_xlabel("learner decisions")
    ax.set_ylabel(f"win rate against {args.opponent}")
    ax.set_title(f"examples/jax_ppo.py: classic UNO, {args.players} players, "
                 f"{jax.devices()[0].platform.upper()}")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.save_curve, dpi=120)
    plt.close(fig)
    print(f"learning curve -> {args.save_curve}")


def main(argv=None) -> None:
    train(parse_args(argv))


if __name__ == "__main__":
    main()
